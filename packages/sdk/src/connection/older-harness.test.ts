import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ErrorCode, SdkError } from "../errors.js";
import { createFakeHarnessTransport, type FakeHarness } from "../transport/in-memory-harness.js";
import { createHarnessConnection } from "./harness-connection.js";

// Issue 10 item 15: a harness of protocol era A (≈0.1.0–0.1.3) never answers the configuration
// with initializeConversationResponse (protocol §5, §20). The community Rust SDK's mock harness
// (codeitlikemiley/antigravity-sdk-rust) behaves so: it reads the config frame and then waits
// for a prompt. This SDK supports era D only; such a harness must fail start() with a clear,
// typed error within its bound, never hang, and leave the connection closed.

/** Era A: read the config, say nothing, wait for the (string) prompt the old client would send. */
async function eraAHarness(harness: FakeHarness, closed: (byClient: boolean) => void): Promise<void> {
  const init = await harness.readInit();
  expect(init.config).toBeDefined();
  closed(await harness.closedBySdk());
}

function expectUnsupportedEra(error: unknown): void {
  expect(error).toBeInstanceOf(SdkError);
  expect((error as SdkError).code).toBe(ErrorCode.DeadlineExceeded);
  expect((error as SdkError).message).toContain("no initializeConversationResponse");
  expect((error as SdkError).message).toContain("protocol era A");
  expect((error as SdkError).message).toContain("not supported");
}

describe("older harnesses (no initializeConversationResponse)", () => {
  it("Agent.start() fails within its timeout, says why, and closes the connection", async () => {
    let byClient: boolean | undefined;
    const transport = createFakeHarnessTransport((harness) => eraAHarness(harness, (c) => (byClient = c)));
    const agent = Agent.builder().transport(transport).allowAll().build();
    const error = await agent.start({ timeoutMs: 100 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectUnsupportedEra(error);
    await transport.settled();
    expect(byClient).toBe(true);
  });

  it("is bounded even when the caller sets no timeout (initializeTimeoutMs, default 60 s)", async () => {
    let byClient: boolean | undefined;
    const transport = createFakeHarnessTransport((harness) => eraAHarness(harness, (c) => (byClient = c)));
    const error = await createHarnessConnection({ transport, config: { cascadeId: "" }, initializeTimeoutMs: 50 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectUnsupportedEra(error);
    await transport.settled();
    expect(byClient).toBe(true);
  });

  it("a caller's abort stays Canceled, and a harness that answers late is still accepted in time", async () => {
    // Aborted before or after the config went out: the harness reads whatever came, then the close.
    const aborted = createFakeHarnessTransport(async (harness) => {
      while (!(await harness.closedBySdk()));
    });
    const controller = new AbortController();
    const pending = createHarnessConnection({ transport: aborted, config: {}, signal: controller.signal });
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as SdkError).code).toBe(ErrorCode.Canceled);
    await aborted.settled();

    const late = createFakeHarnessTransport(async (harness) => {
      await harness.readInit();
      await new Promise((resolve) => setTimeout(resolve, 20));
      harness.respondInit({ cascadeId: "conv-0000000000000000000000000000000005" });
      await harness.closedBySdk();
    });
    const connection = await createHarnessConnection({ transport: late, config: {}, initializeTimeoutMs: 10_000 });
    expect(connection.conversationId).toBe("conv-0000000000000000000000000000000005");
    await connection.disconnect();
    await late.settled();
  });
});
