import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AsyncQueue } from "@antigravity-ts/sdk/internal";
import { REPO_ROOT, ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";
import { CliUsageError, parseCliArgs } from "./cli-args.js";
import { boundedLines, type BoundedLine } from "./bounded-lines.js";
import { MAX_NDJSON_LINE, parseNdjsonLine } from "./ndjson-protocol.js";

// The NDJSON mode of the real `antigravity` CLI (issue 11 item 2), spawned as a child process
// with the bundled reference harness: good and bad lines, confirmations, interrupts, EOF.

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const TURNS_SCRIPT = fileURLToPath(new URL("../../../../test/node/e2e/scripts/turns-script.json", import.meta.url));
const BOUND_MS = 30_000;

/** docs/ndjson.schema.json: each line must match exactly one branch by `type`, with its required properties. */
type Branch = { properties: { type: { const?: string; enum?: string[] } }; required: string[] };
const SCHEMA = JSON.parse(readFileSync(new URL("../../../../docs/ndjson.schema.json", import.meta.url), "utf8")) as {
  version: number;
  $defs: Record<string, { oneOf?: Branch[] }>;
};
function expectSchema(kind: "input" | "output", line: Record<string, unknown>): void {
  const branches = (SCHEMA.$defs[kind]?.oneOf ?? []).filter(
    (b) => b.properties.type.const === line.type || b.properties.type.enum?.includes(line.type as string) === true,
  );
  expect(branches, `${kind} line of type ${String(line.type)}`).toHaveLength(1);
  for (const key of branches[0]?.required ?? [])
    expect(line, `${kind} line ${JSON.stringify(line).slice(0, 80)}`).toHaveProperty(key);
}

let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
}, 300_000);

type Line = Record<string, unknown> & { type: string };

/** The CLI in ndjson mode: write lines, read output lines as they come, end input, exit code. */
interface NdjsonChild {
  send(line: string | object): void;
  /** Reads output lines until one matches; returns every line read. */
  until(match: (line: Line) => boolean, what: string): Promise<Line[]>;
  end(): Promise<{ code: number | null; rest: Line[]; stdout: string }>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startCli(args: string[], env: Record<string, string> = {}): NdjsonChild {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH"]) delete childEnv[name];
  if (env.ANTIGRAVITY_MODEL_PROVIDER === undefined) delete childEnv.ANTIGRAVITY_MODEL_PROVIDER;
  const child = spawn(
    process.execPath,
    [
      "--conditions=antigravity-source",
      "--import",
      "tsx",
      CLI,
      "--harness",
      harnessPath,
      "--input-format",
      "ndjson",
      "--output-format",
      "ndjson",
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  children.push(child);
  const lines = new AsyncQueue<Line>();
  let stdout = "";
  let buffer = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, at)) as Line; // a line that is not JSON fails the test here
      expectSchema("output", line);
      lines.push(line);
      buffer = buffer.slice(at + 1);
    }
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  exited.then(
    () => lines.end(),
    () => undefined,
  );
  const bounded = <T>(promise: Promise<T>, what: string): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`${what} did not happen within ${BOUND_MS} ms; stderr: ${stderr}`)),
          BOUND_MS,
        )),
    );
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };
  return {
    send: (line) => {
      if (typeof line === "object") expectSchema("input", line as Record<string, unknown>);
      child.stdin?.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
    },
    until: (match, what) =>
      bounded(
        (async () => {
          const seen: Line[] = [];
          for (;;) {
            const next = await lines.read();
            if (next.done === true) throw new Error(`the CLI's output ended before ${what}; stderr: ${stderr}`);
            seen.push(next.value);
            if (match(next.value)) return seen;
          }
        })(),
        what,
      ),
    end: async () => {
      child.stdin?.end();
      const code = await bounded(exited, "the CLI's exit");
      const rest: Line[] = [];
      for (;;) {
        const next = await lines.read();
        if (next.done === true) break;
        rest.push(next.value);
      }
      expect(buffer).toBe(""); // every output line is complete
      return { code, rest, stdout };
    },
  };
}

describe("parseNdjsonLine", () => {
  it("reads the four kinds of line and refuses the rest with InvalidArgument", () => {
    expect(parseNdjsonLine('{"type":"user_message","content":"hi","id":"m1"}')).toEqual({
      type: "user_message",
      content: "hi",
      id: "m1",
    });
    expect(parseNdjsonLine('{"type":"interrupt","version":1}')).toEqual({ type: "interrupt" });
    expect(parseNdjsonLine('{"type":"deny","requestId":"c3"}')).toEqual({ type: "deny", requestId: "c3" });
    for (const line of [
      "",
      "nope",
      "[]",
      "null",
      '{"type":"user_message"}',
      '{"type":"user_message","content":"  "}',
      '{"type":"user_message","content":"x","id":7}',
      '{"type":"approve","requestId":1}',
      '{"type":"x"}',
      '{"type":"interrupt","version":3}',
      `{"type":"user_message","content":"${"a".repeat(MAX_NDJSON_LINE)}"}`,
    ]) {
      expect(() => parseNdjsonLine(line), line.slice(0, 40)).toThrow(/bad input line: .*docs\/ndjson\.md/);
    }
  });

  it("takes the formats together, and --mid-turn only with them", () => {
    expect(
      parseCliArgs(["--input-format", "ndjson", "--output-format", "ndjson", "--mid-turn", "interrupt"]),
    ).toMatchObject({ mode: "ndjson", midTurn: "interrupt" });
    expect(parseCliArgs(["--input-format", "text", "--output-format", "text", "hi"])).toMatchObject({ mode: "prompt" });
    expect(() => parseCliArgs(["--input-format", "ndjson"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--input-format", "ndjson", "--output-format", "ndjson", "hello"])).toThrow(
      CliUsageError,
    );
    expect(() => parseCliArgs(["--input-format", "yaml"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--mid-turn", "interrupt", "hi"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--input-format", "ndjson", "--output-format", "ndjson", "--mid-turn", "soon"])).toThrow(
      CliUsageError,
    );
  });
});

describe("boundedLines", () => {
  async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<string | Buffer> {
    yield* parts;
  }
  async function all(input: AsyncIterable<string | Buffer>, max: number): Promise<BoundedLine[]> {
    const out: BoundedLine[] = [];
    for await (const line of boundedLines(input, max)) out.push(line);
    return out;
  }

  it("splits on newlines across chunks, drops a CR before LF, keeps a last line without newline and multi-byte characters split between chunks", async () => {
    const euro = Buffer.from("€");
    expect(await all(chunks("a\r\nb", "c\n\nd", euro.subarray(0, 1), euro.subarray(1), "\n", "tail"), 10)).toEqual([
      { line: "a" },
      { line: "bc" },
      { line: "" },
      { line: "d€" },
      { line: "tail" },
    ]);
  });

  it("never holds more than the limit of a long line: reports its length and goes on with the next", async () => {
    expect(await all(chunks("x".repeat(6), "y".repeat(6), "z\nok\n", "w".repeat(20)), 10)).toEqual([
      { tooLong: 13 },
      { line: "ok" },
      { tooLong: 20 },
    ]);
  });
});

describe("antigravity --input-format ndjson --output-format ndjson (a child process)", () => {
  it("survives hostile lines: a 3 MiB line (never buffered whole), deeply nested JSON, raw NUL bytes; the next good line still runs", async () => {
    const cli = startCli([]);
    await cli.until((l) => l.type === "init", "the init line");
    cli.send("x".repeat(3 * 1024 * 1024));
    cli.send("[".repeat(200_000));
    cli.send('{"type":"user_message","content":"\u0000\u0000"}\u0000');
    const errors = await cli.until((l) => l.type === "error" && l.line === 3, "three error lines");
    expect(errors.map((l) => l.line)).toEqual([1, 2, 3]);
    expect((errors[0]?.error as { message: string }).message).toMatch(/3145728 characters; the limit is 1048576/);
    cli.send({ type: "user_message", content: "What is the weather in Oslo?", id: "ok" });
    const turn = await cli.until((l) => l.type === "result", "the turn's result");
    expect(turn.find((l) => l.type === "receipt")).toMatchObject({ id: "ok", turnIndex: 0 });
    expect(turn.at(-1)).toMatchObject({ success: true });
    expect((await cli.end()).code).toBe(0);
  });

  it("answers good lines with events, bad lines with error events, and goes on; a confirmation is approved by a line; EOF ends it", async () => {
    const cli = startCli([]);
    const [init] = await cli.until((l) => l.type === "init", "the init line");
    expect(init).toMatchObject({
      type: "init",
      version: 2,
      capabilities: { streamingInput: { supported: true, semantics: "queue" } },
    });
    expect(typeof init?.conversationId).toBe("string");

    cli.send("this is not JSON");
    cli.send({ type: "approve" });
    cli.send('{"type":"launch_rockets"}');
    const errors = await cli.until((l) => l.type === "error" && l.line === 3, "three error lines");
    expect(errors.map((l) => [l.type, l.line, (l.error as { code: string }).code])).toEqual([
      ["error", 1, "InvalidArgument"],
      ["error", 2, "FailedPrecondition"],
      ["error", 3, "InvalidArgument"],
    ]);

    cli.send({ type: "user_message", content: "What is the weather in Oslo?", id: "m1" });
    const first = await cli.until((l) => l.type === "result", "the first turn's result");
    expect(first.find((l) => l.type === "receipt")).toEqual({
      type: "receipt",
      id: "m1",
      messageIndex: 0,
      turnIndex: 0,
    });
    expect(first.some((l) => l.type === "toolCall" && (l.toolCall as { name: string }).name === "get_weather")).toBe(
      true,
    );
    expect(first.some((l) => l.type === "toolResult" && (l.toolCall as { name: string }).name === "get_weather")).toBe(
      true,
    );
    expect(first.some((l) => l.type === "text")).toBe(true);
    const complete = first.at(-2);
    expect(complete).toMatchObject({ type: "turnComplete", turnIndex: 0 });
    expect(first.at(-1)).toMatchObject({
      type: "result",
      turnIndex: 0,
      success: true,
      interrupted: false,
      usage: complete?.usage,
    });

    cli.send('{"type":"user_message"}'); // no content: an error, the session goes on
    cli.send({ type: "user_message", content: "please run the tests" });
    const asked = await cli.until((l) => l.type === "confirmationRequest", "the run_command confirmation");
    expect(asked.some((l) => l.type === "error" && (l.error as { message: string }).message.includes("content"))).toBe(
      true,
    );
    const request = asked.at(-1) as Line;
    expect((request.toolCall as { name: string }).name).toBe("run_command");
    // Version 2: the request follows its call's toolCall line and repeats that toolCall (one id, one spelling of the arguments).
    const shown = asked
      .filter((l) => l.type === "toolCall" && (l.toolCall as { name: string }).name === "run_command")
      .at(-1);
    expect(shown).toBeDefined();
    expect(request.toolCall).toEqual(shown?.toolCall);
    expect((request.toolCall as { id: string }).id).toMatch(/:\d+$/); // the step's id (trajectoryId:stepIndex), not the policy request's call id
    cli.send({ type: "deny", requestId: "nope" }); // no such request: an error, the request still waits
    expect(SCHEMA.version).toBe(2);
    cli.send({ type: "approve", requestId: request.requestId });
    const second = await cli.until((l) => l.type === "result", "the second turn's result");
    expect(second.some((l) => l.type === "error" && (l.error as { message: string }).message.includes('"nope"'))).toBe(
      true,
    );
    const result = second.find(
      (l) => l.type === "toolResult" && (l.toolCall as { name: string }).name === "run_command",
    );
    expect(result?.toolCall).toEqual(request.toolCall);
    expect(second.at(-1)).toMatchObject({ type: "result", turnIndex: 1, success: true });

    const { code, rest } = await cli.end();
    expect(code).toBe(0);
    expect(rest).toEqual([]);
  });

  it("interrupts a turn with an interrupt line and, under --mid-turn interrupt, with a new message; partial output and usage are reported", async () => {
    const cli = startCli(["--mid-turn", "interrupt"], {
      ANTIGRAVITY_MODEL_PROVIDER: "scripted",
      ANTIGRAVITY_SCRIPT: TURNS_SCRIPT,
    });
    await cli.until((l) => l.type === "init", "the init line");
    cli.send({ type: "user_message", content: "slow please" });
    const before = await cli.until((l) => l.type === "text", "the slow turn's first text");
    cli.send({ type: "interrupt" });
    const halted = [...before, ...(await cli.until((l) => l.type === "result", "the interrupted turn's result"))];
    expect(halted.at(-1)).toMatchObject({
      type: "result",
      turnIndex: 0,
      success: false,
      interrupted: true,
      error: { code: "Canceled" },
    });
    expect((halted.at(-1)?.usage as { totalTokenCount?: number }).totalTokenCount).toBeGreaterThan(0);
    const partial = halted.flatMap((l) => (l.type === "text" ? [l.text as string] : [])).join("");
    expect(partial.startsWith("word0")).toBe(true);
    expect(partial).not.toContain("word199");

    cli.send({ type: "user_message", content: "slow again" });
    await cli.until((l) => l.type === "text", "the second slow turn's first text");
    cli.send({ type: "user_message", content: "hello there", id: "h" });
    const next = await cli.until((l) => l.type === "result" && l.turnIndex === 2, "the third turn's result");
    const results = next.filter((l) => l.type === "result");
    expect(results.map((l) => [l.turnIndex, l.interrupted])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(next.find((l) => l.type === "receipt" && l.id === "h")).toMatchObject({ turnIndex: 2 });
    const lastTurn = next.slice(next.findIndex((l) => l.type === "result") + 1);
    expect(lastTurn.flatMap((l) => (l.type === "text" ? [l.text as string] : [])).join("")).toBe(
      "Hello! Streaming this answer in chunks.",
    );
    expect((await cli.end()).code).toBe(0);
  });
});
