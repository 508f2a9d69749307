import { randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { pidOfArgv, waitUntilGone } from "@antigravity-ts/test-kit";
import { finalSteps, steps, type Frame } from "../test-support/ws-client.js";

// haltRequest (§13) mid-stream, mid-command, mid-confirmation and mid-tool-call (with the
// client's late answers), and automatedTrigger when idle and when busy.

const LONG_TEXT = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
/** The command's sleep, with a marker no other process has: the test finds it by its argv (a command runs in a PID namespace of its own, where `$$` is 1). */
const SLEEP = `60.${randomInt(100_000, 999_999)}`;
const SCRIPT = {
  turns: [
    { match: "slow", calls: [{ thinking: "thinking first", text: LONG_TEXT, chunkWords: 1, chunkDelayMs: 25 }] },
    {
      match: "sleep",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: `echo started; exec sleep ${SLEEP}` } }] },
        { text: "unreachable" },
      ],
    },
    {
      match: "confirm",
      calls: [
        { toolCalls: [{ name: "run_command", args: { CommandLine: "echo confirmed" } }] },
        { text: "unreachable after a trigger" },
      ],
    },
    { match: "tool", calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "sum {{result.sum}}" }] },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};
const ADD_TOOL = {
  name: "add",
  description: "Add",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
  }),
};
const ASK_FOR_COMMANDS = {
  policyConfig: {
    rules: [{ tool: "run_command", decision: "POLICY_DECISION_ASK_USER", name: "ask", isDynamic: false, ruleId: "" }],
  },
};

describe("halt and triggers", () => {
  const fixture = useHarnessFixture({ name: "halt", script: SCRIPT });
  const connect = fixture.connect;

  it("stops a streaming answer at once: the open step ends in ERROR, the usage so far, then FULLY_IDLE, then nothing more for that turn", async () => {
    const client = await connect();
    client.prompt("slow please");
    const delta = (await client.next((f) => f["stepUpdate"]?.textDelta !== undefined, "a text delta"))[
      "stepUpdate"
    ] as Frame;
    client.send({ haltRequest: true });
    const rest = await client.until(
      (f) => f["trajectoryStateUpdate"] !== undefined,
      "the trajectory state after the halt",
    );
    // Issue 10 item 1: a halt ends with FULLY_IDLE (upstream's halt test expects it), not CANCELLED.
    const idle = rest.at(-1)?.["trajectoryStateUpdate"] as Frame;
    expect(idle).toEqual({ trajectoryId: delta["trajectoryId"], state: "STATE_FULLY_IDLE" });
    const last = steps(rest).at(-1) as Frame;
    expect(last).toMatchObject({
      stepIndex: delta["stepIndex"],
      state: "STATE_ERROR",
      errorMessage: "cancelled by haltRequest",
    });
    expect(last["text"].length).toBeLessThan(LONG_TEXT.length);
    // Issue 8 item 9: the halted call's usage, counted so far (estimated: the scripted model reports at the end).
    const usage = rest.filter((f) => f["usageUpdate"] !== undefined).at(-1)?.["usageUpdate"].total as Frame;
    expect(Number(usage["candidatesTokenCount"])).toBe(Math.ceil(last["text"].length / 4));
    expect(Number(usage["thoughtsTokenCount"])).toBe(Math.ceil("thinking first".length / 4));
    expect(Number(usage["promptTokenCount"])).toBeGreaterThan(0);
    // Everything the model said before the halt went out: the deltas add up to the ERROR step's text.
    expect(
      steps(client.frames)
        .filter((s) => s.stepIndex === delta["stepIndex"])
        .map((s) => s.textDelta ?? "")
        .join(""),
    ).toBe(last["text"]);

    // The next turn starts cleanly: its RUNNING is the very next frame, no straggler of the halted step.
    client.prompt("ping");
    const next = await client.turn();
    expect(next[0]?.["trajectoryStateUpdate"]?.state).toBe("STATE_RUNNING");
    expect(steps(next).every((s) => s.stepIndex > delta["stepIndex"])).toBe(true);
    expect(finalSteps(next).at(-1)?.["text"]).toBe("pong to ping");
    client.close();
  });

  it("kills a running command on halt", async () => {
    const client = await connect();
    client.prompt("sleep");
    const running = (
      await client.next(
        (f) => (f["stepUpdate"]?.runCommand?.combinedOutput ?? "").includes("started"),
        "the command's output",
      )
    )["stepUpdate"] as Frame;
    const pid = await pidOfArgv(["sleep", SLEEP]);
    client.send({ haltRequest: true });
    const rest = await client.until((f) => f["trajectoryStateUpdate"] !== undefined);
    expect(rest.at(-1)?.["trajectoryStateUpdate"].state).toBe("STATE_FULLY_IDLE");
    expect(steps(rest).at(-1)).toMatchObject({ stepIndex: running["stepIndex"], state: "STATE_ERROR" });
    expect(await waitUntilGone(pid)).toBe(true);
    client.prompt("ping");
    expect((await client.turn())[0]?.["trajectoryStateUpdate"]?.state).toBe("STATE_RUNNING");
    client.close();
  });

  it("ends a step waiting for a confirmation without its toolConfirmationRequest, and ignores the late confirmation", async () => {
    const client = await connect(ASK_FOR_COMMANDS);
    client.prompt("confirm");
    const waiting = (await client.next((f) => f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER"))[
      "stepUpdate"
    ] as Frame;
    client.send({ haltRequest: true });
    const rest = await client.until((f) => f["trajectoryStateUpdate"] !== undefined);
    expect(rest.at(-1)?.["trajectoryStateUpdate"].state).toBe("STATE_FULLY_IDLE");
    const last = steps(rest).at(-1) as Frame;
    expect(last).toMatchObject({
      stepIndex: waiting["stepIndex"],
      state: "STATE_ERROR",
      errorMessage: "cancelled by haltRequest",
      runCommand: { commandLine: "echo confirmed" },
    });
    expect(last["toolConfirmationRequest"]).toBeUndefined();
    client.send({
      toolConfirmation: { trajectoryId: waiting["trajectoryId"], stepIndex: waiting["stepIndex"], accepted: true },
    });
    client.prompt("ping");
    const next = await client.turn();
    expect(next[0]?.["trajectoryStateUpdate"]?.state).toBe("STATE_RUNNING");
    expect(steps(next).some((s) => s.source === "SOURCE_SYSTEM" || s.runCommand !== undefined)).toBe(false);
    await fixture.harness.waitForStderr("late toolConfirmation ignored");
    client.close();
  });

  it("ignores a toolResponse that arrives after a halt, and one that repeats an answer, without ERROR steps", async () => {
    const client = await connect({ tools: [ADD_TOOL] });
    client.prompt("tool");
    const halted = (await client.next((f) => f["toolCall"] !== undefined, "toolCall"))["toolCall"] as Frame;
    client.send({ haltRequest: true });
    await client.next((f) => f["trajectoryStateUpdate"]?.state === "STATE_FULLY_IDLE", "FULLY_IDLE");
    client.send({ toolResponse: { id: halted["id"], responseJson: '{"sum":3}' } });

    client.prompt("tool again");
    const call = (await client.next((f) => f["toolCall"] !== undefined, "toolCall"))["toolCall"] as Frame;
    expect(call["id"]).not.toBe(halted["id"]);
    client.send({ toolResponse: { id: call["id"], responseJson: '{"sum":3}' } });
    client.send({ toolResponse: { id: call["id"], responseJson: '{"sum":4}' } });
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("sum 3");
    client.prompt("ping");
    await client.turn();
    expect(steps(client.frames).filter((s) => s.source === "SOURCE_SYSTEM")).toEqual([]);
    await fixture.harness.waitForStderr("late toolResponse ignored");
    await fixture.harness.waitForStderr("repeated toolResponse ignored");
    client.close();
  });

  it("ignores a halt while idle", async () => {
    const client = await connect();
    client.send({ haltRequest: true });
    client.prompt("ping");
    const turn = await client.turn();
    expect(turn[0]?.["trajectoryStateUpdate"]?.state).toBe("STATE_RUNNING");
    expect(turn.at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    client.close();
  });

  it("starts a turn for an automatedTrigger when idle", async () => {
    const client = await connect();
    client.send({ automatedTrigger: "ping" });
    const final = finalSteps(await client.turn());
    expect(final[0]).toMatchObject({ source: "SOURCE_USER", text: "[automated trigger] ping" });
    expect(final.at(-1)?.["text"]).toBe("pong to [automated trigger] ping");
    client.close();
  });

  it("injects an automatedTrigger that arrives mid-turn before the next model call", async () => {
    const client = await connect(ASK_FOR_COMMANDS);
    client.prompt("confirm");
    const waiting = (await client.next((f) => f["stepUpdate"]?.state === "STATE_WAITING_FOR_USER"))[
      "stepUpdate"
    ] as Frame;
    client.send({ automatedTrigger: "ping" });
    client.send({
      toolConfirmation: { trajectoryId: waiting["trajectoryId"], stepIndex: waiting["stepIndex"], accepted: true },
    });
    const turn = await client.turn();
    expect(client.frames.filter((f) => f["trajectoryStateUpdate"]?.state === "STATE_RUNNING")).toHaveLength(1);
    const final = finalSteps(client.frames);
    const command = final.findIndex((s) => s.runCommand);
    const trigger = final.findIndex((s) => s.text === "[automated trigger] ping");
    expect(final[command]?.["state"]).toBe("STATE_DONE");
    expect(trigger).toBeGreaterThan(command);
    expect(final[trigger]).toMatchObject({ source: "SOURCE_USER", state: "STATE_DONE" });
    expect(final.at(-1)?.["text"]).toBe("pong to [automated trigger] ping");
    expect(turn.at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    client.close();
  });
});
