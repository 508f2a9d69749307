import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { TestClient, finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// Issue 8 item 5: file tools run on worker threads with a time limit, halt and disconnect stop
// them, and regexes, globs and replace_all cannot stall the harness. Every case here stalled
// the whole harness before (one session's tool call held the only thread).

// In V8, `(a+)+$` backtracks exponentially on the line of a's; in RE2 the pattern is linear, and
// `a[ab]{999}c` keeps a thousand-state program busy over the long a/b lines: a search that runs
// for about a minute of CPU, long enough to be halted, timed out or overtaken while it runs.
const HEAVY_QUERY = "(a+)+$|a[ab]{999}c";
const GLOB = `${"*a".repeat(30)}*b`;
const SCRIPT = {
  turns: [
    {
      match: "heavy",
      calls: [
        {
          toolCalls: [
            { name: "search_directory", args: { directory_path: "heavy", query: HEAVY_QUERY, is_regex: true } },
          ],
        },
        { text: "searched {{result}}" },
      ],
    },
    {
      match: "small",
      calls: [
        {
          toolCalls: [{ name: "search_directory", args: { directory_path: "small", query: "n.edle", is_regex: true } }],
        },
        { text: "found {{result.num_results}}" },
      ],
    },
    {
      match: "replace",
      calls: [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: { file_path: "many.txt", old_string: "x", new_string: "yy", replace_all: true },
            },
          ],
        },
        { text: "{{result.summary}}" },
      ],
    },
    {
      match: "glob",
      calls: [
        { toolCalls: [{ name: "find_file", args: { directory_path: "names", pattern: GLOB } }] },
        { text: "{{result.count}}: {{result.output}}" },
      ],
    },
    { match: "ping", calls: [{ text: "pong" }] },
  ],
};

/** Lines of pseudo-random a/b ending in c: each costs `a[ab]{999}c` about half a second in re2js. */
function heavyFile(): string {
  let seed = 12345;
  const line = (): string => {
    let text = "";
    for (let i = 0; i < 60_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      text += (seed >> 16) & 1 ? "a" : "b";
    }
    return `${text}c`;
  };
  return [`${"a".repeat(40)}!`, ...Array.from({ length: 100 }, line)].join("\n");
}

const MANY_LINES = 40_000;

describe("tool calls off the event loop", () => {
  const fixture = useHarnessFixture({
    name: "tool-workers",
    script: SCRIPT,
    async prepare(_root, workspace) {
      await mkdir(path.join(workspace, "heavy"));
      await writeFile(path.join(workspace, "heavy", "data.txt"), heavyFile());
      await mkdir(path.join(workspace, "small"));
      await writeFile(path.join(workspace, "small", "a.txt"), "hay\nneedle\nhay\n");
      await mkdir(path.join(workspace, "names"));
      await writeFile(path.join(workspace, "names", "a".repeat(200)), "");
      await writeFile(path.join(workspace, "names", `${"a".repeat(60)}b`), "");
    },
  });

  /** Starts the heavy search and returns its step once it is ACTIVE. */
  async function startHeavySearch(client: TestClient): Promise<Frame> {
    client.prompt("heavy");
    return (await client.next((f) => f["stepUpdate"]?.searchDirectory !== undefined, "the search step"))[
      "stepUpdate"
    ] as Frame;
  }

  it("lets a second session connect, initialise and finish a turn while a catastrophic regex runs in the first", async () => {
    const busy = await fixture.connect();
    const search = await startHeavySearch(busy);

    const other = await fixture.connect();
    other.prompt("ping");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("pong");
    other.prompt("small");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("found 1");
    // The first session's search was still running all along: its step has not ended.
    expect(
      steps(busy.unread()).filter((s) => s.stepIndex === search["stepIndex"] && s.state !== "STATE_ACTIVE"),
    ).toEqual([]);

    busy.send({ haltRequest: true });
    await busy.turn();
    busy.close();
    other.close();
  });

  it("ends the turn on halt while the search runs, and the next turns (and tool calls) work", async () => {
    const client = await fixture.connect();
    const search = await startHeavySearch(client);
    client.send({ haltRequest: true });
    const rest = await client.turn();
    const searchUpdates = steps(rest).filter((s) => s.stepIndex === search["stepIndex"]);
    expect(searchUpdates.at(-1)).toMatchObject({ state: "STATE_ERROR", errorMessage: "cancelled by haltRequest" });
    expect(searchUpdates.some((s) => s.state === "STATE_DONE")).toBe(false);

    client.prompt("small");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("found 1");
    client.prompt("ping");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong");
    client.close();
  });

  it("stops the tool calls of sessions that disconnect, so the workers are free for others", async () => {
    // As many heavy searches as the largest pool has workers; each client leaves mid-search.
    const leaving = await Promise.all(Array.from({ length: 4 }, () => fixture.connect()));
    await Promise.all(leaving.map((client) => startHeavySearch(client)));
    for (const client of leaving) client.close();
    await Promise.all(leaving.map((client) => client.closed));

    const client = await fixture.connect();
    client.prompt("small");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("found 1");
    client.close();
  });

  it("answers the model with a time-limit error that says how to narrow the call, then goes on", async () => {
    const harness = await fixture.start(["--tool-timeout-ms", "1000"]);
    const client = await TestClient.connect(harness.port, harness.apiKey);
    await client.init(harnessConfig(fixture.workspace));
    client.prompt("heavy");
    const turn = await client.turn();
    const search = finalSteps(turn).find((s) => s.searchDirectory !== undefined) as Frame;
    const expected =
      "search_directory did not finish within 1 s and was stopped (the harness's tool time limit). Narrow the call: search a smaller directory_path, or use a more specific query.";
    expect(search).toMatchObject({ state: "STATE_ERROR", errorMessage: expected });
    expect(finalSteps(turn).at(-1)?.["text"]).toBe(`searched ${JSON.stringify({ error: expected })}`);
    client.prompt("small");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("found 1");
    client.close();
    await harness.stop();
  });

  it("replaces 200,000 occurrences with replace_all, writing the exact result", async () => {
    const file = path.join(fixture.workspace, "many.txt");
    const original = Array.from({ length: MANY_LINES }, (_, i) => `${i} x x x x x`).join("\n");
    await writeFile(file, original);
    const client = await fixture.connect();
    client.prompt("replace");
    const turn = await client.turn();
    const edit = finalSteps(turn).find((s) => s.editFile !== undefined) as Frame;
    expect(edit["state"]).toBe("STATE_DONE");
    expect(edit["editFile"]["diffBlock"][0]).toEqual({
      startLine: 1,
      endLine: 1,
      lines: [
        { text: "0 x x x x x", action: "LINE_ACTION_DELETE" },
        { text: "0 yy yy yy yy yy", action: "LINE_ACTION_INSERT" },
      ],
    });
    expect(finalSteps(turn).at(-1)?.["text"]).toMatch(
      /^edited many\.txt: replaced 200000 occurrences \(the step's diff shows the first \d+ blocks\)$/,
    );
    expect(await readFile(file, "utf8")).toBe(original.replaceAll("x", "yy"));
    client.close();
  });

  it("matches a pathological find_file glob against long names and finds the right one", async () => {
    const client = await fixture.connect();
    client.prompt("glob");
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe(`1: ${"a".repeat(60)}b`);
    client.close();
  });
});
