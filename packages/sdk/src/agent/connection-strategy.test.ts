import { afterEach, describe, expect, it } from "vitest";
import { LOCALHARNESS_CAPABILITIES, type ConnectionCapabilities } from "../connection/capabilities.js";
import { ErrorCode, SdkError } from "../errors.js";
import { allowAll, askUser, deferToUser } from "../policies/policy.js";
import { createMemoryConversationStore } from "../storage/memory-store.js";
import { defineTool } from "../tools/tool.js";
import { createFakeHarnessTransport, type FakeHarnessTransport } from "../transport/in-memory-harness.js";
import { StepUpdate_Source, StepUpdate_State, StepUpdate_Target, TrajectoryStateUpdate_State } from "../wire/index.js";
import { Agent } from "./agent.js";
import type { AgentBuilder } from "./agent-builder.js";
import { localHarness, type ConnectionStrategy } from "./connection-strategy.js";

// Issue 24 items 5 and 7: an agent reaches its runtime through a connection strategy that says
// what its wire can do; an option the wire cannot honour is refused at build() and start() with
// Unsupported naming the option and the wire, and `.transport(t)` is `.connection(localHarness(t))`.

const T = "conv-0000000000000000000000000000000007";
let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

/** A wire that can do nothing but text turns; connecting to it fails the test. */
function bareWire(more: Partial<ConnectionCapabilities> = {}): ConnectionStrategy {
  const capabilities: ConnectionCapabilities = {
    wire: "bare",
    clientTools: false,
    hooks: new Set(),
    dynamicPolicies: false,
    confirmations: false,
    questions: false,
    triggers: false,
    halt: false,
    resume: false,
    reconnect: false,
    perCallUsage: false,
    compaction: false,
    media: [],
    skills: false,
    rules: false,
    toolOutputTruncation: false,
    thinkingLevel: false,
    builtinTools: false,
    autoPolicy: false,
    ...more,
  };
  return { capabilities, connect: () => Promise.reject(new Error("a refused agent must not connect")) };
}

function refusal(build: () => unknown): SdkError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError);
    return error as SdkError;
  }
  throw new Error("expected build() to refuse");
}

const add = defineTool({
  name: "add",
  description: "adds",
  parameters: { type: "object", properties: {} } as const,
  call: () => 1,
});

describe("capabilities at build()", () => {
  const cases: [string, string, (b: AgentBuilder<true>) => AgentBuilder<true>][] = [
    ["tools", "tools", (b) => b.tool(add)],
    ["a hook kind", "hooks (preToolCall)", (b) => b.hook({ preToolCall: () => undefined })],
    ["a trigger", "triggers", (b) => b.trigger({ start: () => undefined })],
    [
      "a policy decided by the client",
      "policies (ask_user_run_command)",
      (b) =>
        b.policies(
          askUser("run_command", () => true, { name: "ask_user_run_command" }),
          allowAll(),
        ),
    ],
    [
      "deferToUser",
      "policies (defer: deferToUser)",
      (b) => b.policies(deferToUser("run_command", { name: "defer" }), allowAll()),
    ],
    ["a conversation store", "conversationStore", (b) => b.conversationStore(createMemoryConversationStore())],
    ["compaction", "compaction", (b) => b.compactionThreshold(50_000)],
  ];
  it.each(cases)("refuses %s the wire cannot honour, naming the option and the wire", (_what, option, add) => {
    const error = refusal(() => add(Agent.builder().connection(bareWire()).allowAll()).build());
    expect(error.code).toBe(ErrorCode.Unsupported);
    expect(error.details).toEqual({ option, wire: "bare" });
    expect(error.message).toContain(`${option} needs`);
    expect(error.message).toContain("the bare wire cannot do");
  });

  it("builds what the wire can do, and the same options on a wire that has them", () => {
    expect(() => Agent.builder().connection(bareWire()).allowAll().build()).not.toThrow();
    expect(() =>
      Agent.builder()
        .connection(bareWire({ clientTools: true, hooks: new Set(["preToolCall"]) }))
        .tool(add)
        .hook({ preToolCall: () => undefined })
        .allowAll()
        .build(),
    ).not.toThrow();
    expect(() =>
      Agent.builder()
        .connection(localHarness(createFakeHarnessTransport(async () => undefined)))
        .tool(add)
        .allowAll()
        .build(),
    ).not.toThrow();
  });

  it("checks again at start() for an agent made without the builder", async () => {
    const agent = new Agent({ connection: bareWire(), tools: [add], policies: [allowAll()] });
    await expect(agent.start()).rejects.toMatchObject({
      code: ErrorCode.Unsupported,
      details: { option: "tools", wire: "bare" },
    });
  });

  it("refuses connection(...) together with transport(...)", async () => {
    const agent = Agent.builder()
      .connection(bareWire())
      .transport(createFakeHarnessTransport(async () => undefined))
      .allowAll()
      .build();
    await expect(agent.start()).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
  });
});

describe("localHarness(transport)", () => {
  it("is what .transport(t) means: the same session over the same wire", async () => {
    transport = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      harness.respondInit({ cascadeId: T });
      await harness.expect("userInput");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      harness.step({
        trajectoryId: T,
        cascadeId: T,
        stepIndex: 1,
        state: StepUpdate_State.DONE,
        source: StepUpdate_Source.MODEL,
        target: StepUpdate_Target.USER,
        text: "hi",
        textDelta: "hi",
      });
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
      await harness.closedBySdk();
    });
    const started = await Agent.builder().connection(localHarness(transport)).allowAll().build().start();
    expect(LOCALHARNESS_CAPABILITIES.wire).toBe("localharness");
    expect(started.conversationId).toBe(T);
    expect((await started.chatToCompletion("hello")).text).toBe("hi");
    await started.stop();
  });
});
