import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BuiltinTool, ErrorCode, GatewayCloseCode } from "@antigravity-ts/node";
import {
  GATEWAY_SECRET,
  HARNESS_KEY,
  KEY_FILE_NAME,
  ORIGIN,
  OUTSIDE_SECRET,
  TOKENS,
  setUpGatewayFixture,
} from "./gateway-fixture.js";
import { PageClient } from "./page-client.js";

/** Whether bubblewrap runs here (scripts/ensure-bubblewrap.mjs installs it; command-sandbox.test.ts covers the machines where it cannot). */
const sandboxable =
  process.platform === "linux" &&
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "/bin/true"]).status === 0;

// Issue 8 items 2, 12 and 13 through a real gateway and a real harness: sessions belong to the
// page that created them, the harness key stays out of a page's reach, pages that never speak
// lose their slot, and a flood of refused upgrades makes a bounded number of log lines. Also: a
// key file's path stays out of reach like the key, the harness's refusal of a session id reaches
// the page as it was given, and half-sent upgrade requests are closed.

const fixture = setUpGatewayFixture("sessions");
const [ALICE, BOB, CAROL] = TOKENS;
/** Raw TCP clients of a test, destroyed after it. */
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** Creates a session as `token`, says `secret` in it, closes it; returns its id. */
async function sessionWith(
  gateway: Parameters<typeof fixture.page>[0],
  token: string,
  secret: string,
): Promise<string> {
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
      session: {
        workspaces: [fixture.workspace],
        authorizeResume: (_id, page) => page.token === CAROL,
        onSessionCreated: (cascadeId) => created.push(cascadeId),
      },
    });
    const alice = await fixture.page(second, ALICE);
    alice.send({ config: { cascadeId: id, sessionContinuationMode: "RESUME" } });
    expect((await alice.closure()).code).toBe(GatewayCloseCode.PolicyViolation);
    const carol = await fixture.page(second, CAROL);
    expect(
      JSON.stringify((await carol.init({ cascadeId: id, sessionContinuationMode: "RESUME" }))["history"]),
    ).toContain("alice-secret-43");
    expect(created).toEqual([]);
    const fresh = await fixture.page(second, BOB);
    expect(created).toEqual([(await fresh.init({}))["cascadeId"]]);
  });

  it.each([
    ["in its environment", async () => ({ harness: fixture.harness, keyFile: undefined })],
    ["in a file (--api-key-file)", () => fixture.keyFileHarness()],
  ] as const)(
    "run_command, when the operator allows it, shows a page neither the harness key (%s) nor the gateway's environment",
    async (_, start) => {
      const { harness, keyFile } = await start();
      const gateway = await fixture.gateway({
        target: { url: harness.url, apiKey: HARNESS_KEY },
        session: { workspaces: [fixture.workspace], tools: [BuiltinTool.RunCommand] },
      });
      const page = await fixture.page(gateway);
      await page.init({ harnessSideTools: { runCommand: { enabled: true } } });
      const pid = harness.child.pid as number;
      const env = JSON.stringify(await page.turn("run printenv"));
      // $PPID is 0 in the PID namespace a command runs in: name the harness's pid outright as well.
      const cmdline = JSON.stringify(await page.turn(`run cat /proc/$PPID/cmdline /proc/${pid}/cmdline; echo ran`));
      const environ = JSON.stringify(await page.turn(`run cat /proc/$PPID/environ /proc/${pid}/environ; echo ran`));
      // The commands did run (so the absence below means something)…
      expect(env).toContain("PATH=");
      expect(cmdline).toContain("ran");
      expect(environ).toContain("ran");
      // …and nothing of the key, where it is kept, or the parent's secrets came back, nor is it in
      // what any process of the harness's OS user can read of the harness.
      const own = [await readFile(`/proc/${pid}/cmdline`, "utf8"), await readFile(`/proc/${pid}/environ`, "utf8")];
      expect(own[0]).toContain("--listen");
      for (const output of [env, cmdline, environ, ...own]) {
        expect(output).not.toContain(HARNESS_KEY);
        expect(output).not.toContain(GATEWAY_SECRET);
        expect(output).not.toContain(KEY_FILE_NAME);
      }
      if (keyFile !== undefined) expect(own[0]).toContain("--api-key-file");
    },
  );

  it.runIf(sandboxable)(
    "with the operator's sandbox, a page's command reads neither the key file nor anything outside the workspace",
    async () => {
      const { harness, keyFile } = await fixture.keyFileHarness();
      const gateway = await fixture.gateway({
        target: { url: harness.url, apiKey: HARNESS_KEY },
        session: {
          workspaces: [fixture.workspace],
          tools: [BuiltinTool.RunCommand],
          runCommand: { enableSandbox: true },
        },
      });
      const page = await fixture.page(gateway);
      // The page asks for no sandbox: the operator's holds.
      await page.init({ harnessSideTools: { runCommand: { enabled: true, enableSandbox: false } } });
      const out = JSON.stringify(
        await page.turn(
          `run cat ${keyFile}; cat ${fixture.outside}/*; touch ${fixture.outside}/page-was-here; echo ran`,
        ),
      );
      expect(out).toContain("ran");
      expect(out).not.toContain(HARNESS_KEY);
      expect(out).not.toContain(OUTSIDE_SECRET);
      expect(out).toContain("cannot touch"); // under /tmp it is not there at all; elsewhere read-only
      await expect(readFile(`${fixture.outside}/page-was-here`)).rejects.toThrow();
    },
  );

  it.each([
    ["a leading space", " alice-session"],
    ["a NUL", "alice\u0000session"],
  ])(
    "a session id the harness refuses (%s) closes the page with 1008 and the harness's reason",
    async (_, cascadeId) => {
      const gateway = await fixture.gateway();
      const before = fixture.sessionsStarted();
      const page = await fixture.page(gateway);
      page.send({ config: { cascadeId } });
      const close = await page.closure();
      expect(close).toEqual({
        code: GatewayCloseCode.PolicyViolation,
        reason: "cascadeId must be 1-128 characters of [A-Za-z0-9_-]",
      });
      expect(fixture.sessionsStarted()).toBe(before);
    },
  );

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

  it("closes upgrade requests whose headers never finish", async () => {
    const gateway = await fixture.gateway({ headersTimeoutMs: 500 });
    const { hostname, port } = new URL(gateway.url ?? "");
    const partial = ["", "GET / HT", `GET /?token=${ALICE} HTTP/1.1\r\nHost: gateway\r\nUpgrade: websocket\r\n`];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const socket = connect(Number(port), hostname, () => socket.write(partial[i % partial.length] ?? ""));
        sockets.push(socket);
        let received = "";
        socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
        socket.on("error", () => {}); // 'close' follows
        return new Promise<string>((resolve) =>
          socket.once("close", () => resolve(received.split("\r\n", 1)[0] ?? "")),
        );
      }),
    );
    expect(new Set(answers)).toEqual(new Set(["HTTP/1.1 408 Request Timeout"]));
  });

  it("refuses headersTimeoutMs with a server of the caller's: its own settings apply", async () => {
    await expect(fixture.gateway({ server: createServer(), headersTimeoutMs: 500 })).rejects.toMatchObject({
      code: ErrorCode.InvalidArgument,
      message: expect.stringContaining("headersTimeout"),
    });
  });
});
