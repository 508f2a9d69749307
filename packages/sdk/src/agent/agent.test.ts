import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { askUser, allowAll } from "../policies/policy.js";
import { defineTool } from "../tools/tool.js";
import {
  createFakeHarnessTransport,
  type FakeHarness,
  type FakeHarnessTransport,
} from "../transport/in-memory-harness.js";
import type { Transport } from "../transport/transport.js";
import type { Trigger } from "../triggers/trigger.js";
import {
  LifecycleHook,
  StepUpdate_Source,
  StepUpdate_State,
  StepUpdate_Target,
  TrajectoryStateUpdate_State,
  type InitializeConversationEvent,
} from "../wire/index.js";
import { Agent } from "./agent.js";
import type { TransportContext } from "./agent-options.js";
import { deferred } from "@antigravity-ts/test-kit";

const T = "conv-0000000000000000000000000000000001";
let transport: FakeHarnessTransport | undefined;

afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

function fake(
  script: (harness: FakeHarness, init: InitializeConversationEvent) => Promise<void>,
): FakeHarnessTransport {
  transport = createFakeHarnessTransport(async (harness) => {
    const init = await harness.readInit();
    harness.respondInit({ cascadeId: T });
    await script(harness, init);
  });
  return transport;
}

function answer(harness: FakeHarness, text: string): void {
  harness.state(T, TrajectoryStateUpdate_State.RUNNING);
  harness.step({
    trajectoryId: T,
    cascadeId: T,
    stepIndex: 1,
    state: StepUpdate_State.DONE,
    source: StepUpdate_Source.MODEL,
    target: StepUpdate_Target.USER,
    text,
    textDelta: text,
  });
  harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
}

describe("Agent", () => {
  it("starts with the assembled config, chats, and stops with the session-end round trip", async () => {
    const events: string[] = [];
    const t = fake(async (harness, init) => {
      const config = init.config;
      expect(config?.tools.map((tool) => tool.name)).toEqual(["add"]);
      expect(config?.systemInstructions?.type.case).toBe("appended");
      expect(config?.enabledHooks).toEqual([LifecycleHook.ON_SESSION_END]);
      expect(config?.policyConfig?.rules.map((r) => r.name)).toEqual(["allow_all"]);
      expect(config?.workspaces.map((w) => w.workspaceType.value?.directory)).toEqual(["/srv/project"]);
      const input = await harness.expect("userInput");
      expect(input.parts[0]?.part.value).toBe("What is 2+3?");
      answer(harness, "5");
      await harness.expect("sessionEndRequest");
      harness.send({
        event: { case: "callHookRequest", value: { requestId: "e", type: LifecycleHook.ON_SESSION_END } },
      });
      await harness.expect("callHookResponse");
      harness.send({ event: { case: "sessionEndResponse", value: true } });
      expect(await harness.closedBySdk()).toBe(true);
    });
    // A factory that starts the runtime's own harness gets the runtime's default workspace.
    const agent = Agent.builder({ defaultWorkspaces: () => ["/srv/project"] })
      .transport(Object.assign(() => t, { startsHarness: true }))
      .systemInstructions("Be terse.")
      .tool(defineTool({ name: "add", description: "Adds", call: () => 0 }))
      .hook({ onSessionEnd: () => void events.push("session end") })
      .allowAll()
      .build();
    const started = await agent.start({ timeoutMs: 5_000 });
    expect(started.conversationId).toBe(T);
    const response = await started.chatToCompletion("What is 2+3?");
    expect(response.text).toBe("5");
    expect(await started.conversation().turnCount()).toBe(1);
    await started.stop();
    await started.stop();
    expect(events).toEqual(["session end"]);
    await expect(agent.start()).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
  });

  it("sends the runtime's default workspace only to its own harness, not through a transport pointed elsewhere", async () => {
    const seen: string[][] = [];
    const t = createFakeHarnessTransport(async (harness) => {
      const init = await harness.readInit();
      seen.push(init.config?.workspaces.map((w) => String(w.workspaceType.value?.directory)) ?? []);
      harness.respondInit({ cascadeId: T });
      await harness.closedBySdk();
    });
    transport = t;
    const defaults = { defaultWorkspaces: () => ["/srv/project"] };
    await (await Agent.builder(defaults).transport(t).allowAll().build().start()).stop();
    await (await Agent.builder(defaults).transport(t).workspaces("/chosen").allowAll().build().start()).stop();
    expect(seen).toEqual([[], ["/chosen"]]);
  });

  it("validates options before connecting", async () => {
    let connects = 0;
    const counting: Transport = {
      connect: () => {
        connects++;
        return Promise.reject(new Error("unreachable"));
      },
    };
    const conflicting = Agent.builder()
      .transport(counting)
      .enabledTools("view_file")
      .disabledTools("run_command")
      .allowAll()
      .build();
    await expect(conflicting.start()).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
      message: expect.stringContaining("mutually exclusive"),
    });
    const unsafe = Agent.builder().transport(counting).policies().build();
    await expect(unsafe.start()).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
      message: expect.stringContaining("without a safety policy"),
    });
    expect(connects).toBe(0);
    // Options refused before connecting leave the agent startable: the same refusal again, not FailedPrecondition.
    await expect(unsafe.start()).rejects.toMatchObject({ code: ErrorCode.InvalidArgument });
  });

  it("refuses a second start() while the first one runs, and connects once", async () => {
    let connects = 0;
    const t = createFakeHarnessTransport(async (harness) => {
      connects++;
      await harness.readInit();
      harness.respondInit({ cascadeId: T });
      await harness.closedBySdk();
    });
    transport = t;
    // Hooks and triggers load while start() runs (dynamic imports): the second call must not slip in then.
    const agent = Agent.builder()
      .transport(t)
      .hook({ preToolCall: () => undefined })
      .allowAll()
      .build();
    const first = agent.start({ timeoutMs: 5_000 });
    await expect(agent.start()).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    await (await first).stop();
    expect(connects).toBe(1);
  });

  it("leaves nothing behind when start fails, and can be started again", async () => {
    let attempt = 0;
    const t = createFakeHarnessTransport(async (harness) => {
      attempt++;
      await harness.readInit();
      if (attempt === 1) return harness.close(); // hangs up instead of answering
      harness.respondInit({ cascadeId: T });
      expect(await harness.closedBySdk()).toBe(true);
    });
    transport = t;
    const agent = Agent.builder().transport(t).allowAll().build();
    await expect(agent.start()).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    const started = await agent.start();
    await started.stop();
  });

  it("stops the session if a trigger fails to start", async () => {
    const t = fake(async (harness) => {
      expect(await harness.closedBySdk()).toBe(true);
    });
    const broken: Trigger = {
      start: () => {
        throw new Error("watcher failed");
      },
    };
    await expect(Agent.builder().transport(t).trigger(broken).allowAll().build().start()).rejects.toThrow(
      "watcher failed",
    );
  });

  it("runs triggers with the session and stops them with it", async () => {
    const stopped: string[] = [];
    const reading = deferred();
    const t = fake(async (harness) => {
      expect(await harness.expect("automatedTrigger")).toBe("wake up");
      harness.state(T, TrajectoryStateUpdate_State.RUNNING);
      await reading.promise;
      answer(harness, "awake");
      expect(await harness.expect("automatedTrigger")).toBe("after idle");
      expect(await harness.closedBySdk()).toBe(true);
    });
    const trigger: Trigger = {
      async run(context, signal) {
        await context.sendTrigger("wake up");
        await context.sendTrigger("after idle", { delivery: "whenIdle", signal });
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      },
      stop: () => void stopped.push("stopped"),
    };
    const started = await Agent.builder().transport(t).trigger(trigger).allowAll().build().start();
    // The trigger's message starts a turn nobody sent: wait until the harness runs it, then read it.
    await expect.poll(() => started.connection.isIdle).toBe(false);
    const steps = [];
    const iterator = started.conversation().receiveSteps()[Symbol.asyncIterator]();
    const first = iterator.next();
    reading.resolve();
    for (let next = await first; next.done !== true; next = await iterator.next()) steps.push(next.value);
    expect(steps.map((s) => s.content)).toEqual(["awake"]);
    await started.stop();
    expect(stopped).toEqual(["stopped"]);
  });

  it("decides built-in confirmations with the policies' ASK_USER handler", async () => {
    const asked: unknown[] = [];
    const t = fake(async (harness) => {
      await harness.expect("userInput");
      harness.step({
        trajectoryId: T,
        stepIndex: 2,
        state: StepUpdate_State.WAITING_FOR_USER,
        runCommand: { commandLine: "rm -rf /" },
        toolConfirmationRequest: {},
      });
      expect(await harness.expect("toolConfirmation")).toMatchObject({ stepIndex: 2, accepted: false });
      harness.step({
        trajectoryId: T,
        stepIndex: 3,
        state: StepUpdate_State.WAITING_FOR_USER,
        viewFile: { filePath: "/a" },
        toolConfirmationRequest: {},
      });
      expect(await harness.expect("toolConfirmation")).toMatchObject({ stepIndex: 3, accepted: true });
      harness.state(T, TrajectoryStateUpdate_State.FULLY_IDLE);
    });
    const started = await Agent.builder()
      .transport(t)
      .policies(
        askUser("run_command", (call) => {
          asked.push(call.args);
          return false;
        }),
        allowAll(),
      )
      .build()
      .start();
    await started.chatToCompletion("clean up");
    expect(asked).toEqual([{ CommandLine: "rm -rf /" }]);
    await started.stop();
  });

  it("builds the transport from a factory with the session's context, or refuses to guess", async () => {
    const contexts: TransportContext[] = [];
    const t = fake(async (harness) => void (await harness.closedBySdk()));
    const agent = Agent.builder({
      defaultTransport: (context) => {
        contexts.push(context);
        return t;
      },
    })
      .allowAll()
      .build();
    await (await agent.start()).stop();
    expect(contexts).toEqual([{ clientInfo: expect.objectContaining({ language: "typescript", version: "0.1.0" }) }]);
    const saved = { host: process.env["ANTIGRAVITY_HARNESS_HOST"], port: process.env["ANTIGRAVITY_HARNESS_PORT"] };
    delete process.env["ANTIGRAVITY_HARNESS_HOST"];
    delete process.env["ANTIGRAVITY_HARNESS_PORT"];
    try {
      await expect(Agent.builder().allowAll().build().start()).rejects.toMatchObject({
        code: ErrorCode.FailedPrecondition,
        message: expect.stringContaining("@antigravity-ts/node"),
      });
    } finally {
      if (saved.host !== undefined) process.env["ANTIGRAVITY_HARNESS_HOST"] = saved.host;
      if (saved.port !== undefined) process.env["ANTIGRAVITY_HARNESS_PORT"] = saved.port;
    }
  });
});
