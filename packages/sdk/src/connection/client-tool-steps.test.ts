import { afterEach, describe, expect, it } from "vitest";
import { Conversation } from "../conversation/conversation.js";
import { defineTool } from "../tools/tool.js";
import { ToolRunner } from "../tools/tool-runner.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import type { Step, StreamChunk } from "../step.js";
import { customToolStep, textStep, type StepUpdateInit } from "@antigravity-ts/test-kit";
import { StepUpdate_State, TrajectoryStateUpdate_State } from "../wire/index.js";
import { createHarnessConnection, type HarnessConnection } from "./harness-connection.js";
import { isSyntheticToolStep } from "./synthetic-steps.js";

// Client tools as a ≈0.1.6+ harness shows them: a `customTool` step and a `toolCall` event for the
// same call (protocol §7.1), and call ids that come back in later turns (§7: answer each call once).

const T = "traj-main";
let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

const add = defineTool({
  name: "add",
  description: "Adds two integers",
  parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } } },
  call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
});

async function open(
  script: (harness: FakeHarness) => Promise<void>,
  history: StepUpdateInit[] = [],
): Promise<HarnessConnection> {
  transport = createFakeHarnessTransport(async (harness) => {
    await harness.readInit();
    harness.respondInit({ cascadeId: T, history });
    await script(harness);
  });
  return createHarnessConnection({ transport, config: {}, tools: new ToolRunner([add]), timeoutMs: 5_000 });
}

/** The harness's own step for a custom tool call (§7.1), as the reference harness sends it. */
function toolStep(
  stepIndex: number,
  state: StepUpdate_State,
  id: string,
  name: string,
  argumentsJson: string,
): StepUpdateInit {
  return customToolStep({ trajectoryId: T, stepIndex, state }, { id, name, argumentsJson });
}

/**
 * One turn with a registered tool (`add`) and one nobody registered (`remote_only`): the harness
 * sends each call's customTool step ACTIVE, the toolCall event, waits for the answer, then DONE.
 * Then a call of `add` the harness refuses itself (ACTIVE, ERROR, no toolCall event).
 */
async function toolTurn(harness: FakeHarness, suffix: string, base = 0): Promise<void> {
  await harness.expect("userInput");
  harness.state(T, TrajectoryStateUpdate_State.RUNNING);
  // Step indices grow over the session, as the harness numbers them (§6.2).
  const calls = [
    { index: base + 1, id: `c-${suffix}`, name: "add", args: '{"a":2,"b":3}' },
    { index: base + 2, id: `u-${suffix}`, name: "remote_only", args: "{}" },
  ];
  for (const call of calls) {
    harness.step(toolStep(call.index, StepUpdate_State.ACTIVE, call.id, call.name, call.args));
    harness.send({ event: { case: "toolCall", value: { id: call.id, name: call.name, argumentsJson: call.args } } });
    expect(await harness.expect("toolResponse")).toMatchObject({ id: call.id });
    harness.step(toolStep(call.index, StepUpdate_State.DONE, call.id, call.name, call.args));
  }
  // A call of the registered tool that a policy refuses: the harness never sends it to the SDK.
  harness.step(toolStep(base + 4, StepUpdate_State.ACTIVE, `d-${suffix}`, "add", '{"a":0,"b":0}'));
  harness.step({
    ...toolStep(base + 4, StepUpdate_State.ERROR, `d-${suffix}`, "add", '{"a":0,"b":0}'),
    errorMessage: "denied by policy: no zeros",
  });
  harness.step(textStep({ trajectoryId: T, stepIndex: base + 3, state: StepUpdate_State.DONE }, "5"));
  harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
}

const carrying = (steps: Step[], id: string): Step[] => steps.filter((s) => s.toolCalls.some((c) => c.id === id));

describe("client tool calls in the step and chunk streams (§7.1)", () => {
  it("gives one toolCall chunk per call (from the harness's customTool step) and synthetic steps for the call as it runs here", async () => {
    const connection = await open(async (harness) => {
      await toolTurn(harness, "1");
      await toolTurn(harness, "2", 10);
    });
    const conversation = new Conversation(connection);

    const chunks: StreamChunk[] = [];
    for await (const chunk of conversation.chat("what is 2+3?")) chunks.push(chunk);
    const toolChunks = chunks.filter((c): c is Extract<StreamChunk, { type: "toolCall" }> => c.type === "toolCall");
    // Seed 000's rules exactly: the harness's MODEL→USER customTool steps give the chunks (once per
    // id); the synthetic steps are ENVIRONMENT-targeted and give none.
    expect(toolChunks.map((c) => c.toolCall)).toEqual([
      { id: "c-1", name: "add", args: { a: 2, b: 3 } },
      { id: "u-1", name: "remote_only", args: {} },
      { id: "d-1", name: "add", args: { a: 0, b: 0 } },
    ]);
    expect(chunks.filter((c) => c.type === "text")).toEqual([{ type: "text", stepIndex: 3, text: "5" }]);

    await conversation.send("again");
    const steps: Step[] = [];
    for await (const step of conversation.receiveSteps()) steps.push(step);
    // The registered tool: the harness's step and the SDK's synthetic steps carry the same call id,
    // so a UI keys its card by call id (or draws it from the synthetic steps alone).
    const registered = carrying(steps, "c-2");
    expect(registered.map((s) => [s.status, isSyntheticToolStep(s)])).toEqual([
      ["ACTIVE", false],
      ["ACTIVE", true],
      ["DONE", true],
      ["DONE", false],
    ]);
    expect(registered[2]).toMatchObject({
      content: '{"sum":5}',
      toolCalls: [{ id: "c-2", name: "add", args: { sum: 5 } }],
    });
    // A refused call never reached the SDK: no synthetic steps, only the harness's step, ending in ERROR.
    expect(steps.filter((s) => s.id === `${T}:14`).map((s) => [s.status, s.toolCalls.map((c) => c.id)])).toEqual([
      ["ACTIVE", ["d-2"]],
      ["ERROR", ["d-2"]],
    ]);
    expect(steps.some((s) => isSyntheticToolStep(s) && s.id === "d-2")).toBe(false);
    await conversation.disconnect();
  });

  it("keeps the call on customTool steps replayed in initialHistory", async () => {
    const connection = await open(
      async () => undefined,
      [toolStep(1, StepUpdate_State.DONE, "old-call", "add", '{"a":1,"b":1}')],
    );
    expect(connection.initialHistory.map((s) => s.toolCalls)).toEqual([
      [{ id: "old-call", name: "add", args: { a: 1, b: 1 } }],
    ]);
    await connection.disconnect();
  });
});

describe("tool call ids across turns (§7)", () => {
  it("answers a call whose id was used in an earlier turn, and a re-send within one turn only once", async () => {
    const connection = await open(async (harness) => {
      for (const turn of [1, 2]) {
        await harness.expect("userInput");
        harness.send({
          event: { case: "toolCall", value: { id: "call_1", name: "add", argumentsJson: `{"a":${turn},"b":1}` } },
        });
        expect(await harness.expect("toolResponse")).toEqual(
          expect.objectContaining({ id: "call_1", responseJson: JSON.stringify({ sum: turn + 1 }) }),
        );
        // A re-send of the call answered in this turn is not answered again.
        harness.send({
          event: { case: "toolCall", value: { id: "call_1", name: "add", argumentsJson: `{"a":${turn},"b":1}` } },
        });
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
      }
      expect(await harness.closedBySdk()).toBe(true); // nothing else was sent: no second answer
    });
    for (const prompt of ["first", "second"]) {
      await connection.send(prompt);
      const synthetic: Step[] = [];
      for await (const step of connection.receiveSteps({ timeoutMs: 5_000 }))
        if (isSyntheticToolStep(step)) synthetic.push(step);
      expect(synthetic.map((s) => [s.id, s.status])).toEqual([
        ["call_1", "ACTIVE"],
        ["call_1", "DONE"],
      ]);
    }
    await connection.disconnect();
  });
});

describe("a call id the harness uses again in a later turn (security issue item 9)", () => {
  it("is recorded as a call of its own: the earlier turn's record of call_1 stays, the later one is call_1~1 on every step", async () => {
    const connection = await open(async (harness) => {
      for (const turn of [1, 2, 3]) {
        await harness.expect("userInput");
        harness.state(T, TrajectoryStateUpdate_State.RUNNING);
        const index = turn * 10;
        if (turn !== 2) {
          // As a harness whose model numbers its calls from call_1 in every session does.
          const args = `{"a":${turn},"b":1}`;
          harness.step(toolStep(index, StepUpdate_State.ACTIVE, "call_1", "add", args));
          harness.send({ event: { case: "toolCall", value: { id: "call_1", name: "add", argumentsJson: args } } });
          expect(await harness.expect("toolResponse")).toMatchObject({ id: "call_1" });
          harness.step(toolStep(index, StepUpdate_State.DONE, "call_1", "add", args));
        }
        harness.step(
          textStep({ trajectoryId: T, stepIndex: index + 1, state: StepUpdate_State.DONE }, `answer ${turn}`),
        );
        harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
      }
    });
    const conversation = new Conversation(connection);
    for (const prompt of ["one", "two", "three"]) await conversation.chat(prompt).final();
    const history = await conversation.history();
    const results = history.filter(isSyntheticToolStep).map((s) => [s.id, s.status, s.toolCalls[0]?.args]);
    expect(results).toEqual([
      ["call_1", "DONE", { sum: 2 }],
      ["call_1~1", "DONE", { sum: 4 }],
    ]);
    // The harness's own steps of each call carry the id its turn records.
    expect(
      history.filter((s) => !isSyntheticToolStep(s) && s.toolCalls.length > 0).map((s) => [s.id, s.toolCalls[0]?.id]),
    ).toEqual([
      [`${T}:10`, "call_1"],
      [`${T}:30`, "call_1~1"],
    ]);
    expect(new Set(history.map((s) => s.id)).size).toBe(history.length);
    await conversation.disconnect();
  });
});

describe("synthetic steps of a tool that changes its arguments", () => {
  it("show the arguments as the harness sent them, for a tool that answers at once and one that answers later", async () => {
    const trim = (later: boolean) =>
      defineTool({
        name: later ? "trim_later" : "trim_now",
        description: "Drops its arguments' padding",
        call: (args: { text: string; padding?: number }) => {
          args.text = args.text.trim();
          delete args.padding;
          return later ? Promise.resolve({ text: args.text }) : { text: args.text };
        },
      });
    transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: T });
      await harness.expect("userInput");
      for (const name of ["trim_now", "trim_later"]) {
        harness.send({
          event: { case: "toolCall", value: { id: name, name, argumentsJson: '{"text":"  hi  ","padding":2}' } },
        });
        expect(await harness.expect("toolResponse")).toMatchObject({ id: name, responseJson: '{"text":"hi"}' });
      }
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const connection = await createHarnessConnection({
      transport,
      config: {},
      tools: new ToolRunner([trim(false), trim(true)]),
      timeoutMs: 5_000,
    });
    await connection.send("trim");
    const synthetic: Step[] = [];
    for await (const step of connection.receiveSteps({ timeoutMs: 5_000 }))
      if (isSyntheticToolStep(step)) synthetic.push(step);
    expect(synthetic.map((s) => [s.id, s.status, s.toolCalls[0]?.args])).toEqual([
      ["trim_now", "ACTIVE", { text: "  hi  ", padding: 2 }],
      ["trim_now", "DONE", { text: "hi" }],
      ["trim_later", "ACTIVE", { text: "  hi  ", padding: 2 }],
      ["trim_later", "DONE", { text: "hi" }],
    ]);
    await connection.disconnect();
  });
});
