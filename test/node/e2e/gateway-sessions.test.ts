import { describe, expect, it } from "vitest";
import { BuiltinTool, GatewayCloseCode } from "@antigravity-ts/node";
import { GATEWAY_SECRET, HARNESS_KEY, ORIGIN, TOKENS, useGatewayFixture } from "./gateway-fixture.js";
import { PageClient } from "./page-client.js";

// Issue 8 items 2, 12 and 13 through a real gateway and a real harness: sessions belong to the
// page that created them, the harness key stays out of a page's reach, pages that never speak
// lose their slot, and a flood of refused upgrades makes a bounded number of log lines.

const fixture = useGatewayFixture("sessions");
const [ALICE, BOB, CAROL] = TOKENS;

/** Creates a session as `token`, says `secret` in it, closes it; returns its id. */
async function sessionWith(gateway: Parameters<typeof fixture.page>[0], token: string, secret: string): Promise<string> {
  const page = await fixture.page(gateway, token);
  const init = await page.init({});
  await page.turn(`remember ${secret}`);
  page.socket.close();
  await page.closure();
  return init["cascadeId"] as string;
}

describe("sessions through the gateway", () => {
  it("a page resumes its own session, never another page's", async () => {
    const gateway = await fixture.gateway();
    const id = await sessionWith(gateway, ALICE, "alice-secret-42");

    const bobResume = await fixture.page(gateway, BOB);
    bobResume.send({ config: { cascadeId: id, sessionContinuationMode: "RESUME" } });
    const refused = await bobResume.closure();
    expect(refused.code).toBe(GatewayCloseCode.PolicyViolation);
    expect(refused.reason).toContain("was not created by this page");

    // Without a mode (create or resume), an id the page does not own is only ever created: the harness refuses it.
    const bobGuess = await fixture.page(gateway, BOB);
    bobGuess.send({ config: { cascadeId: id } });
    await bobGuess.closure();
    expect([...bobResume.raw, ...bobGuess.raw].join("\n")).not.toContain("alice-secret-42");

    const alice = await fixture.page(gateway, ALICE);
    const resumed = await alice.init({ cascadeId: id, sessionContinuationMode: "RESUME" });
    expect(JSON.stringify(resumed["history"])).toContain("alice-secret-42");
  });

  it("authorizeResume decides for ids this gateway did not bind (e.g. after a restart)", async () => {
    const first = await fixture.gateway();
    const id = await sessionWith(first, ALICE, "alice-secret-43");
    const created: string[] = [];
    const second = await fixture.gateway({
      session: { workspaces: [fixture.workspace], authorizeResume: (_id, page) => page.token === CAROL, onSessionCreated: (cascadeId) => created.push(cascadeId) },
    });
    const alice = await fixture.page(second, ALICE);
    alice.send({ config: { cascadeId: id, sessionContinuationMode: "RESUME" } });
    expect((await alice.closure()).code).toBe(GatewayCloseCode.PolicyViolation);
    const carol = await fixture.page(second, CAROL);
    expect(JSON.stringify((await carol.init({ cascadeId: id, sessionContinuationMode: "RESUME" }))["history"])).toContain("alice-secret-43");
    expect(created).toEqual([]);
    const fresh = await fixture.page(second, BOB);
    expect(created).toEqual([(await fresh.init({}))["cascadeId"]]);
  });

  it("run_command, when the operator allows it, shows a page neither the harness key nor the gateway's environment", async () => {
    const gateway = await fixture.gateway({ session: { workspaces: [fixture.workspace], tools: [BuiltinTool.RunCommand] } });
    const page = await fixture.page(gateway);
    await page.init({ harnessSideTools: { runCommand: { enabled: true } } });
    const env = JSON.stringify(await page.turn("run printenv"));
    const cmdline = JSON.stringify(await page.turn("run cat /proc/$PPID/cmdline"));
    const environ = JSON.stringify(await page.turn("run cat /proc/$PPID/environ"));
    // The commands did run (so the absence below means something)…
    expect(env).toContain("PATH=");
    expect(cmdline).toContain("--listen");
    expect(environ).toContain("PATH=");
    // …and nothing of the key or the parent's secrets came back.
    for (const output of [env, cmdline, environ]) {
      expect(output).not.toContain(HARNESS_KEY);
      expect(output).not.toContain(GATEWAY_SECRET);
    }
  });

  it("closes pages that never send a frame and frees their slots", async () => {
    const gateway = await fixture.gateway({ maxConnections: 2, firstFrameTimeoutMs: 300 });
    const before = fixture.sessionsStarted();
    const silent = [await fixture.page(gateway), await fixture.page(gateway)];
    for (const page of silent) {
      const close = await page.closure();
      expect(close.code).toBe(GatewayCloseCode.PolicyViolation);
      expect(close.reason).toContain("no InitializeConversationEvent within 0.3 s");
    }
    const next = await fixture.page(gateway);
    await next.init({});
    expect(fixture.sessionsStarted()).toBe(before + 1);
  });

  it("logs a flood of refused upgrades in a bounded number of lines", async () => {
    const gateway = await fixture.gateway();
    const attempts = 300;
    const outcomes = await Promise.all(
      Array.from({ length: attempts }, (_, i) =>
        PageClient.open(gateway.url ?? "", `wrong-${i}`, ORIGIN).then(
          () => "open",
          (error: Error) => error.message,
        ),
      ),
    );
    expect(outcomes.every((outcome) => outcome === "HTTP 401")).toBe(true);
    await gateway.close(); // flushes the summary
    const lines = fixture.logs.filter((line) => line.includes("401"));
    expect(lines.length).toBeLessThanOrEqual(6);
    // Every refusal is accounted for: logged one by one, or counted in a summary.
    const counted = lines.reduce((sum, line) => sum + Number(/^(\d+) more /.exec(line)?.[1] ?? 1), 0);
    expect(counted).toBe(attempts);
  });
});
