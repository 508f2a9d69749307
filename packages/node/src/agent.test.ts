import { beforeAll, describe, expect, it } from "vitest";
import { Agent as CoreAgent, ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { Agent, SubprocessTransport, subprocessTransportFactory, type SubprocessChannel } from "./index.js";
import { liveChildCount } from "./subprocess/child-registry.js";
import { ensureScriptedReferenceHarness } from "@antigravity-ts/test-kit";

let harnessPath = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
}, 300_000);

describe("Node Agent", () => {
  it("starts the harness as a subprocess by default and runs a turn", async () => {
    const agent = await Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath }))
      .allowAll()
      .build()
      .start({ timeoutMs: 30_000 });
    try {
      expect(liveChildCount()).toBe(1);
      const response = await agent.chatToCompletion("Hello there");
      expect(response.text).toContain("scripted demo model");
      expect(response.steps.length).toBeGreaterThan(0);
    } finally {
      await agent.stop();
    }
    expect(liveChildCount()).toBe(0);
  });

  it("fails the turn with HarnessCrashed when the harness is killed mid-turn", async () => {
    let channel: SubprocessChannel | undefined;
    const transport = new SubprocessTransport({ harnessPath });
    const agent = await Agent.builder()
      .transport({ connect: async (options) => (channel = await transport.connect(options)) })
      .allowAll()
      .build()
      .start({ timeoutMs: 30_000 });
    try {
      const conversation = agent.conversation();
      await conversation.send("Hello there");
      const error = await (async () => {
        let killed = false;
        for await (const _ of conversation.receiveSteps()) {
          if (!killed) process.kill(channel?.pid ?? -1, "SIGKILL");
          killed = true;
        }
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.HarnessCrashed);
      expect((error as SdkError).message).toContain("was killed by SIGKILL");
    } finally {
      await agent.stop();
    }
    expect(liveChildCount()).toBe(0);
  });

  it("reports a missing harness binary from start() and leaves nothing running", async () => {
    const error = await Agent.builder()
      .transport(subprocessTransportFactory({ harnessPath: "/nonexistent/localharness" }))
      .allowAll()
      .build()
      .start()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.FailedPrecondition); // configuration: not retryable
    expect((error as SdkError).message).toContain("harness binary not found at /nonexistent/localharness");
    expect(liveChildCount()).toBe(0);
  });

  it("is the core Agent, with Node's defaults registered on import; defaults given to builder() win", async () => {
    expect(Agent).toBe(CoreAgent);
    const refuse = (): never => {
      throw new SdkError(ErrorCode.FailedPrecondition, "the builder's own default transport ran");
    };
    const error = await CoreAgent.builder({ defaultTransport: refuse })
      .allowAll()
      .build()
      .start()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as SdkError).message).toContain("the builder's own default transport ran");
    expect(liveChildCount()).toBe(0);
  });
});
