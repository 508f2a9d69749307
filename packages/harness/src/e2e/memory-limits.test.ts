import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { WAIT_MS } from "@antigravity-ts/test-kit";
import { TestClient, finalSteps, harnessConfig } from "../test-support/ws-client.js";

// Issue 8 item 7: a listening harness without --storage forgets ended sessions beyond a count
// and an age (so connect/disconnect cycles cannot grow it without bound), says so when one is
// asked for again, and closes a connection that sends an oversized message without disturbing
// the others.

const SLOW = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
const SCRIPT = {
  turns: [
    { match: "slow", calls: [{ text: SLOW, chunkWords: 1, chunkDelayMs: 50 }] },
    { match: "ping", calls: [{ text: "pong to {{prompt}}" }] },
  ],
};
const KEEP = 4;
const id = (n: number): string => `memory-limits-${String(n).padStart(4, "0")}-0123456789abcdef0123`;

/** Opens a session with `cascadeId`, plays one turn, closes it and waits for the close. */
async function cycle(port: number, apiKey: string, workspace: string, cascadeId: string): Promise<void> {
  const client = await TestClient.connect(port, apiKey);
  await client.init(harnessConfig(workspace, { cascadeId, sessionContinuationMode: "CREATE_ONLY" }));
  client.prompt("ping");
  expect(finalSteps(await client.turn()).at(-1)?.["text"]).toBe("pong to ping");
  client.close();
  await client.closed;
}

/** Tries to resume `cascadeId`: "resumed", or the close reason. */
async function resume(port: number, apiKey: string, workspace: string, cascadeId: string): Promise<string> {
  const client = await TestClient.connect(port, apiKey);
  client.send({ config: harnessConfig(workspace, { cascadeId, sessionContinuationMode: "RESUME" }) });
  try {
    await client.next((f) => f["initializeConversationResponse"] !== undefined, "initializeConversationResponse");
    client.close();
    await client.closed;
    return "resumed";
  } catch {
    const closed = await client.closed;
    return `${closed.code} ${closed.reason}`;
  }
}

describe("memory limits of a listening harness without storage", () => {
  const fixture = useHarnessFixture({
    name: "memory-limits",
    script: SCRIPT,
    args: () => ["--keep-ended-sessions", String(KEEP), "--max-frame-bytes", String(256 * 1024)],
  });

  it("keeps only the most recent ended sessions through many connect/disconnect cycles, and says why an evicted one cannot be resumed", async () => {
    const { port, apiKey } = fixture.harness;
    const cycles = 20;
    for (let n = 0; n < cycles; n++) await cycle(port, apiKey, fixture.workspace, id(n));
    const outcomes: string[] = [];
    for (let n = 0; n < cycles; n++) outcomes.push(await resume(port, apiKey, fixture.workspace, id(n)));
    // Resuming touches a session, so checking in order keeps the last KEEP resumable.
    expect(outcomes.slice(cycles - KEEP)).toEqual(Array(KEEP).fill("resumed"));
    for (const outcome of outcomes.slice(0, cycles - KEEP)) {
      expect(outcome).toMatch(
        /^1008 no stored session memory-limits-\d{4}-0123456789abcdef0123 to resume in memory \(keeps the last 4 for 3600 s\)$/,
      );
    }
    expect(fixture.harness.stderr()).toContain("sessions in memory (keeps the last 4 for 3600 s)");
  });

  it("forgets an ended session after --ended-session-ttl, without further traffic", async () => {
    const harness = await fixture.start(["--ended-session-ttl", "1"]);
    await cycle(harness.port, harness.apiKey, fixture.workspace, id(100));
    // Bounded poll: the store drops it on its own timer once untouched for a second (a successful
    // resume touches it again, so each probe waits longer than the TTL before the next).
    let outcome = "";
    for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(250)) {
      outcome = await resume(harness.port, harness.apiKey, fixture.workspace, id(100));
      if (outcome !== "resumed") break;
      await sleep(1200);
    }
    expect(outcome).toBe(`1008 no stored session ${id(100)} to resume in memory (keeps the last 4 for 1 s)`);
  });

  it("closes a connection that sends a message over --max-frame-bytes with 1009, and goes on serving the others", async () => {
    const other = await fixture.connect();
    const client = await fixture.connect();
    client.sendRaw(JSON.stringify({ userInput: { parts: [{ text: "x".repeat(300 * 1024) }] } }));
    expect((await client.closed).code).toBe(1009);
    // The other session, a new one, and the harness process are fine.
    other.prompt("ping other");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("pong to ping other");
    const fresh = await fixture.connect();
    fresh.prompt("ping fresh");
    expect(finalSteps(await fresh.turn()).at(-1)?.["text"]).toBe("pong to ping fresh");
    expect(fixture.harness.child.exitCode).toBeNull();
    await fixture.harness.waitForStderr(/socket error: .*Max payload size exceeded/);
    other.close();
    fresh.close();
  });

  it("closes a connection that queues more than 64 MiB of prompts behind its running turn", async () => {
    const harness = await fixture.start(["--max-frame-bytes", String(2 * 1024 * 1024)]);
    const client = await TestClient.connect(harness.port, harness.apiKey);
    await client.init(harnessConfig(fixture.workspace));
    client.prompt("slow");
    await client.next((f) => f["stepUpdate"]?.text !== undefined, "the slow answer streaming");
    const prompt = "y".repeat(1024 * 1024 - 16);
    for (let n = 0; n < 70 && client.socket.readyState === client.socket.OPEN; n++) client.prompt(prompt);
    expect(await client.closed).toEqual({
      code: 1008,
      reason: "more than 67108864 bytes of prompts queued behind the running turn; wait for its end",
    });
    const other = await TestClient.connect(harness.port, harness.apiKey);
    await other.init(harnessConfig(fixture.workspace));
    other.prompt("ping");
    expect(finalSteps(await other.turn()).at(-1)?.["text"]).toBe("pong to ping");
    other.close();
  });
});
