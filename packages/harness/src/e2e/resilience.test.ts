import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { startListeningHarness } from "@antigravity-ts/test-kit";
import { TestClient, finalSteps, harnessConfig, steps, type Frame } from "../test-support/ws-client.js";

// Huge frames (§4: no size limit), clients that stop reading, bugs inside one session, and a
// harness whose stderr reader went away: none of them may take the process down.

const ADD_TOOL = {
  name: "add",
  description: "Add",
  parametersJsonSchema: JSON.stringify({
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
  }),
};
/** 6,000 one-word chunks: the cumulative `text` of the updates adds up to ~100 MB, far more than socket buffers hold. */
const LONG_TEXT = Array.from({ length: 6000 }, (_, i) => `w${i}`).join(" ");
const SCRIPT = {
  turns: [
    { match: "tool", calls: [{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }, { text: "got {{result.size}}" }] },
    { match: "stream", calls: [{ text: LONG_TEXT, chunkWords: 1 }] },
    { match: "inject", calls: [{ text: "faulty" }] },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};
/** Preloaded into the harness: raises a fault in the session that sends a marked frame. */
const FAULT_INJECTION = fileURLToPath(new URL("../test-support/fault-injection.ts", import.meta.url));

describe("resilience", () => {
  const fixture = useHarnessFixture({ name: "resilience", script: SCRIPT, nodeArgs: ["--import", FAULT_INJECTION] });
  const ping = async (client: TestClient, text: string): Promise<void> => {
    client.prompt(text);
    expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe(`pong to ${text}`);
  };

  it("carries a 5 MiB tool response into the custom tool step and back to the model", async () => {
    const client = await fixture.connect({ tools: [ADD_TOOL] });
    client.prompt("tool");
    const call = (await client.next((f) => f["toolCall"] !== undefined, "toolCall"))["toolCall"] as Frame;
    const blob = "x".repeat(5 * 1024 * 1024);
    client.send({ toolResponse: { id: call["id"], responseJson: JSON.stringify({ blob, size: blob.length }) } });
    const final = finalSteps(await client.turn());
    const custom = final.find((s) => s.customTool !== undefined) as Frame;
    expect(custom["state"]).toBe("STATE_DONE");
    expect(JSON.parse(custom["customTool"].toolResponse.responseJson).blob).toBe(blob);
    expect(final.at(-1)?.["text"]).toBe(`got ${blob.length}`);
    client.close();
  });

  it("holds a turn back while its client does not read, serves other sessions meanwhile, and delivers every frame in order", async () => {
    const slow = await fixture.connect();
    const other = await fixture.connect();
    slow.socket.pause();
    slow.prompt("stream");
    // A whole turn of another session: by its end the stalled stream has had every chance to run.
    await ping(other, "ping while stalled");
    // Still streaming: the harness waited for the client instead of buffering the whole turn.
    slow.send({ haltRequest: true });
    slow.socket.resume();
    const turn = await slow.turn();
    expect(turn.at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    const updates = steps(turn).filter((s) => s.source === "SOURCE_MODEL");
    const last = updates.at(-1) as Frame;
    expect(last).toMatchObject({ state: "STATE_ERROR", errorMessage: "cancelled by haltRequest" });
    expect(updates.map((s) => s.textDelta ?? "").join("")).toBe(last["text"]);
    expect(last["text"].length).toBeLessThan(LONG_TEXT.length);
    await ping(slow, "ping after the stall");
    slow.close();
    other.close();
  });

  for (const [marker, kind] of [
    ["inject-uncaught-fault", "uncaught exception"],
    ["inject-rejected-fault", "unhandled rejection"],
  ] as const) {
    it(`closes only the session whose code raised an ${kind}, and logs it`, async () => {
      const bystander = await fixture.connect();
      const faulty = await fixture.connect();
      faulty.prompt(marker);
      await expect(faulty.until(() => false, "the close")).rejects.toThrow(
        "connection closed (1011 internal harness error)",
      );
      expect(await fixture.harness.waitForStderr(`${kind} in session`)).toBeTruthy();
      expect(fixture.harness.stderr()).toContain(`injected fault: ${marker}`);
      await ping(bystander, `ping after the ${kind}`);
      expect(fixture.harness.child.exitCode).toBeNull();
      bystander.close();
    });
  }

  it("keeps serving when the reader of its stderr goes away", async () => {
    const harness = await startListeningHarness();
    harness.child.stderr.destroy();
    // Each refused upgrade logs a warning into the closed pipe.
    for (let i = 0; i < 3; i++) await expect(TestClient.connect(harness.port, "wrong key")).rejects.toThrow("HTTP 401");
    const client = await TestClient.connect(harness.port, harness.apiKey);
    await client.init(harnessConfig(fixture.workspace));
    client.prompt("hello");
    expect((await client.turn()).at(-1)?.["trajectoryStateUpdate"]?.state).toBe("STATE_FULLY_IDLE");
    client.close();
    expect(await harness.stop()).toEqual({ code: 0, signal: null });
  });
});
