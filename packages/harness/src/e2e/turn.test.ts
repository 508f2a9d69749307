import { mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";
import { TestClient, finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// A full turn over a real socket: the demo model, custom tools, built-in tools, containment.

const ADD_TOOL = {
  name: "add",
  description: "Add two integers",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
  }),
};
const ANSWER_SCHEMA = JSON.stringify({
  type: "object",
  properties: { answer: { type: "string" }, confidence: { type: "number" } },
  required: ["answer", "confidence"],
});

const SCRIPT = {
  turns: [
    {
      match: "model outage",
      calls: [{ text: "starting to answer", error: { message: "quota exhausted", httpCode: 429 } }],
    },
    {
      match: "failing tool",
      calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "the tool said: {{result.error}}" }],
    },
    {
      match: "files",
      calls: [
        {
          toolCalls: [
            { name: "create_file", args: { file_path: "notes/a.txt", contents: "alpha\nbeta\n" } },
            { name: "edit_file", args: { file_path: "notes/a.txt", old_string: "beta", new_string: "gamma" } },
            { name: "view_file", args: { file_path: "notes/a.txt" } },
            { name: "find_file", args: { directory_path: ".", pattern: "*.txt" } },
            { name: "search_directory", args: { directory_path: ".", query: "gamma" } },
          ],
        },
        { text: "file now reads {{results.view_file.content}}" },
      ],
    },
    {
      regex: "^(\\S+) escape$",
      calls: [
        {
          toolCalls: [
            { name: "view_file", args: { file_path: "../outside.txt" } },
            { name: "view_file", args: { file_path: "{{match.1}}" } },
            { name: "view_file", args: { file_path: "link/secret.txt" } },
            { name: "create_file", args: { file_path: "link/new.txt", contents: "x" } },
          ],
        },
        { text: "refused" },
      ],
    },
  ],
};

describe("a turn over a real socket (protocol §6)", () => {
  const fixture = useHarnessFixture({
    name: "turn",
    script: SCRIPT,
    prepare: async (root, workspace) => {
      await mkdir(path.join(root, "outside"));
      await writeFile(path.join(workspace, "README.md"), "# demo\n");
      await writeFile(path.join(root, "outside.txt"), "secret");
      await writeFile(path.join(root, "outside", "secret.txt"), "secret");
      await symlink(path.join(root, "outside"), path.join(workspace, "link"));
    },
  });
  const scripted = fixture.connect;
  let demo: ListeningHarness;
  beforeAll(async () => {
    // The built-in demo model: a second harness without --script.
    demo = await startListeningHarness();
  });

  it("streams the demo turn: user step, thinking, text deltas, find_file, a client tool round trip, usage and finish", async () => {
    const client = await TestClient.connect(demo.port, demo.apiKey);
    const init = await client.init(
      harnessConfig(fixture.workspace, { tools: [ADD_TOOL], finishToolSchemaJson: ANSWER_SCHEMA }),
    );
    const cascadeId = init["cascadeId"] as string;
    expect(cascadeId).toMatch(/^[a-zA-Z0-9-]{32,}$/);
    expect(init["history"] ?? []).toEqual([]);
    expect(init["cumulativeUsage"]).toMatchObject({ totalTokenCount: "0" });

    client.prompt("What is in here?");
    const toolCallFrame = await client.next((f) => f["toolCall"] !== undefined, "toolCall");
    expect(toolCallFrame["toolCall"]).toMatchObject({ name: "add", argumentsJson: JSON.stringify({ a: 2, b: 3 }) });
    client.send({ toolResponse: { id: toolCallFrame["toolCall"].id, responseJson: JSON.stringify({ sum: 5 }) } });
    await client.turn();
    const turn = client.frames.slice(1);

    // seqNum / timestampMicros on every frame, int64 as strings, seqNum monotonic per session.
    const seqs = client.frames.map((f) => f["seqNum"]);
    expect(seqs.every((s) => typeof s === "string")).toBe(true);
    expect(seqs.map(Number)).toEqual(seqs.map((_, i) => i + 1));
    expect(
      client.frames.every((f) => typeof f["timestampMicros"] === "string" && /^\d{16}$/.test(f["timestampMicros"])),
    ).toBe(true);

    expect(turn[0]?.["trajectoryStateUpdate"]).toEqual({ trajectoryId: cascadeId, state: "STATE_RUNNING" });
    expect(turn[turn.length - 1]?.["trajectoryStateUpdate"]).toEqual({
      trajectoryId: cascadeId,
      state: "STATE_FULLY_IDLE",
    });
    const all = steps(turn);
    expect(all.every((s) => s.cascadeId === cascadeId && s.trajectoryId === cascadeId)).toBe(true);
    const final = finalSteps(turn);
    expect(final.map((s) => s.stepIndex ?? 0)).toEqual(final.map((_, i) => i));
    expect(final[0]).toMatchObject({
      state: "STATE_DONE",
      source: "SOURCE_USER",
      target: "TARGET_MODEL",
      text: "What is in here?",
    });

    // The first model step streams thinking then text in several updates; deltas add up.
    const first = all.filter((s) => s.stepIndex === 1);
    const thinkingDeltas = first.map((s) => s.thinkingDelta).filter(Boolean);
    const textDeltas = first.map((s) => s.textDelta).filter(Boolean);
    expect(thinkingDeltas.length).toBeGreaterThan(2);
    expect(textDeltas.length).toBeGreaterThan(2);
    expect(first.slice(0, -1).every((s) => s.state === "STATE_ACTIVE")).toBe(true);
    const firstFinal = first[first.length - 1] as Frame;
    expect(firstFinal).toMatchObject({ state: "STATE_DONE", source: "SOURCE_MODEL", target: "TARGET_USER" });
    expect(thinkingDeltas.join("")).toBe(firstFinal["thinking"]);
    expect(textDeltas.join("")).toBe(firstFinal["text"]);
    expect(firstFinal["text"]).toContain("(scripted demo model — set GEMINI_API_KEY for a real one)");
    expect(firstFinal["thinking"]).toContain("What is in here?");

    // The demo looks at the workspace with find_file (a default built-in; list_directory is not since upstream 0.1.19).
    const find = final.find((s) => s.findFile !== undefined) as Frame;
    expect(find).toMatchObject({ state: "STATE_DONE", source: "SOURCE_MODEL", target: "TARGET_USER" });
    expect(find["findFile"]).toMatchObject({ query: "*" });
    const found = (find["findFile"].output as string).split("\n");
    expect(found).toContain("README.md");
    // The symlink to a directory outside the workspace is neither listed nor followed.
    expect(found.some((name) => name.startsWith("link") || name.includes("secret"))).toBe(false);

    const custom = final.find((s) => s.customTool !== undefined) as Frame;
    expect(custom).toMatchObject({ state: "STATE_DONE", source: "SOURCE_MODEL", target: "TARGET_USER" });
    expect(custom["customTool"].toolCall).toEqual(toolCallFrame["toolCall"]);
    expect(custom["customTool"].toolResponse).toMatchObject({
      id: toolCallFrame["toolCall"].id,
      responseJson: '{"sum":5}',
    });
    expect(all.some((s) => s.stepIndex === custom["stepIndex"] && s.state === "STATE_ACTIVE")).toBe(true);

    const answer = final.find((s) => s.stepIndex > custom["stepIndex"] && s.text) as Frame;
    expect(answer["text"]).toContain('{"sum":5}');
    expect(answer["text"]).toContain(`Workspace entries found: ${found.length}.`);

    const finish = final[final.length - 1] as Frame;
    expect(finish).toMatchObject({ state: "STATE_DONE", source: "SOURCE_MODEL", target: "TARGET_USER" });
    expect(JSON.parse(finish["finish"].outputString)).toEqual({ answer: "demo", confidence: 2 });

    const usages = turn.filter((f) => f["usageUpdate"] !== undefined).map((f) => f["usageUpdate"]);
    expect(usages.length).toBe(2);
    const total = usages[1].total;
    expect(Number(total.totalTokenCount)).toBe(
      Number(total.promptTokenCount) + Number(total.candidatesTokenCount) + Number(total.thoughtsTokenCount),
    );
    expect(Number(total.totalTokenCount)).toBeGreaterThan(Number(usages[0].total.totalTokenCount));
    expect(usages[1].agents).toEqual([{ trajectoryId: cascadeId, usage: total }]);
    client.close();
  });

  it("runs run_command for a prompt with 'run' in the demo and returns its output", async () => {
    const client = await TestClient.connect(demo.port, demo.apiKey);
    await client.init(harnessConfig(fixture.workspace));
    client.prompt("run something");
    const final = finalSteps(await client.turn());
    const command = final.find((s) => s.runCommand !== undefined) as Frame;
    expect(command).toMatchObject({
      state: "STATE_DONE",
      runCommand: { commandLine: "echo hello", exitCode: 0, combinedOutput: "hello\n" },
    });
    expect(command["runCommand"].workingDir).toBe(await realpath(fixture.workspace));
    expect(final[final.length - 1]?.["text"]).toContain('"output":"hello\\n"');
    client.close();
  });

  it("reports a client tool's errorMessage as an ERROR step and feeds it to the model", async () => {
    const client = await scripted({ tools: [ADD_TOOL] });
    client.prompt("use the failing tool");
    const call = await client.next((f) => f["toolCall"] !== undefined, "toolCall");
    client.send({ toolResponse: { id: call["toolCall"].id, errorMessage: "division by zero" } });
    const final = finalSteps(await client.turn());
    const custom = final.find((s) => s.customTool !== undefined) as Frame;
    expect(custom).toMatchObject({
      state: "STATE_ERROR",
      errorMessage: "division by zero",
      error: { errorMessage: "division by zero" },
    });
    expect(custom["customTool"].toolResponse).toMatchObject({ errorMessage: "division by zero" });
    expect(final[final.length - 1]?.["text"]).toBe("the tool said: division by zero");
    client.close();
  });

  it("runs the file tools inside the workspace with the action payloads of §11.2", async () => {
    const client = await scripted();
    client.prompt("files please");
    const final = finalSteps(await client.turn());
    const real = await realpath(fixture.workspace);
    const file = path.join(real, "notes/a.txt");
    expect(final.find((s) => s.createFile)?.["createFile"]).toEqual({ filePath: file, contents: "alpha\nbeta\n" });
    expect(final.find((s) => s.editFile)?.["editFile"]).toEqual({
      filePath: file,
      diffBlock: [
        {
          startLine: 2,
          endLine: 2,
          lines: [
            { text: "beta", action: "LINE_ACTION_DELETE" },
            { text: "gamma", action: "LINE_ACTION_INSERT" },
          ],
        },
      ],
    });
    expect(final.find((s) => s.viewFile)?.["viewFile"]).toEqual({ filePath: file, startLine: 1, endLine: 3 });
    expect(final.find((s) => s.findFile)?.["findFile"]).toEqual({
      directoryPath: real,
      query: "*.txt",
      output: "notes/a.txt",
    });
    const search = final.find((s) => s.searchDirectory) as Frame;
    expect(search["searchDirectory"]).toEqual({ directoryPath: real, query: "gamma", numResults: 1 });
    expect(search["text"]).toBe("notes/a.txt:2: gamma");
    expect(await readFile(file, "utf8")).toBe("alpha\ngamma\n");
    expect(final[final.length - 1]?.["text"]).toBe("file now reads alpha\ngamma\n");
    client.close();
  });

  it("refuses paths outside the workspace: '..', absolute paths and symlinks, as ERROR steps", async () => {
    const client = await scripted();
    client.prompt(path.join(fixture.root, "outside.txt") + " escape");
    const final = finalSteps(await client.turn());
    const errors = final.filter((s) => s.state === "STATE_ERROR");
    expect(errors).toHaveLength(4);
    expect(errors[0]?.["errorMessage"]).toContain('"../outside.txt" is outside the workspace');
    expect(errors[1]?.["errorMessage"]).toContain(
      `"${path.join(fixture.root, "outside.txt")}" is outside the workspace`,
    );
    expect(errors[2]?.["errorMessage"]).toContain("through a symlink");
    expect(errors[3]?.["errorMessage"]).toContain("through a symlink");
    expect(errors.every((s) => s.source === "SOURCE_MODEL" && s.error?.errorMessage === s.errorMessage)).toBe(true);
    await expect(readFile(path.join(fixture.root, "outside", "new.txt"))).rejects.toThrow();
    client.close();
  });

  it("ends the turn with a SOURCE_SYSTEM ERROR step and FULLY_IDLE{error} when the model fails", async () => {
    const client = await scripted();
    client.prompt("model outage");
    const turn = await client.turn();
    const final = finalSteps(turn);
    expect(final[1]).toMatchObject({ source: "SOURCE_MODEL", state: "STATE_ERROR", text: "starting to answer" });
    expect(final[2]).toMatchObject({
      source: "SOURCE_SYSTEM",
      state: "STATE_ERROR",
      error: { errorMessage: "model error: quota exhausted", httpCode: 429 },
    });
    expect(turn.at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      error: "model error: quota exhausted",
    });
    client.close();
  });

  it("stops at the BudgetConfig limits with a stopReason", async () => {
    const client = await scripted({ budgetConfig: { maxModelCalls: 1 } });
    client.prompt("files again");
    const byModelCalls = await client.turn();
    expect(byModelCalls.at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      state: "STATE_FULLY_IDLE",
      stopReason: "STOP_REASON_MAX_MODEL_CALLS_EXCEEDED",
    });
    expect(finalSteps(byModelCalls).filter((s) => s.text?.startsWith("file now reads"))).toEqual([]);
    client.close();

    const limited = await scripted({ budgetConfig: { maxToolCalls: 2 } });
    limited.prompt("files once more");
    const byToolCalls = await limited.turn();
    expect(byToolCalls.at(-1)?.["trajectoryStateUpdate"]).toMatchObject({
      stopReason: "STOP_REASON_MAX_TOOL_CALLS_EXCEEDED",
    });
    expect(
      finalSteps(byToolCalls)
        .filter((s) => s.source === "SOURCE_MODEL")
        .map((s) => Object.keys(s).find((k) => k.endsWith("File"))),
    ).toEqual(["createFile", "editFile"]);
    limited.close();
  });

  it("serves concurrent sessions independently", async () => {
    const [a, b] = await Promise.all([
      TestClient.connect(demo.port, demo.apiKey),
      TestClient.connect(demo.port, demo.apiKey),
    ]);
    const [initA, initB] = await Promise.all([
      a.init(harnessConfig(fixture.workspace)),
      b.init(harnessConfig(fixture.workspace)),
    ]);
    expect(initA["cascadeId"]).not.toBe(initB["cascadeId"]);
    a.prompt("first");
    b.prompt("second");
    const [turnA, turnB] = await Promise.all([a.turn(), b.turn()]);
    expect(finalSteps(turnA)[0]?.["text"]).toBe("first");
    expect(finalSteps(turnB)[0]?.["text"]).toBe("second");
    expect(steps(turnA).every((s) => s.cascadeId === initA["cascadeId"])).toBe(true);
    expect(a.frames[0]?.["seqNum"]).toBe("1");
    expect(b.frames[0]?.["seqNum"]).toBe("1");
    a.close();
    b.close();
  });
});
