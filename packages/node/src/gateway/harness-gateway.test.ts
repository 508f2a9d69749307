import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import {
  ErrorCode,
  SdkError,
  WebSocketTransport,
  type CallOptions,
  type Channel,
  type Transport,
} from "@antigravity-ts/sdk";
import { SubprocessTransport } from "../subprocess/subprocess-transport.js";
import { fakePath, waitUntilGone } from "../subprocess/testing/process-probe.js";
import { rawToString } from "./gateway-relay.js";
import { createHarnessGateway, type HarnessGateway, type HarnessGatewayOptions } from "./harness-gateway.js";

const ORIGIN = "http://app.test";
const TOKEN = "page-token-123";
const HARNESS_KEY = "harness-key";
/** The first frame a page sends (§5); the gateway fills in the operator's settings. */
const INIT = JSON.stringify({ config: {} });
const cleanups: (() => Promise<void> | void)[] = [];
let workspace = "";

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "gateway-unit-"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A stand-in harness: a WebSocket server that demands the key and records what it sees. */
async function startHarness(): Promise<{
  url: string;
  connections: WebSocket[];
  requests: IncomingMessage[];
  received: string[];
  nextConnection: () => Promise<WebSocket>;
}> {
  const connections: WebSocket[] = [];
  const requests: IncomingMessage[] = [];
  const received: string[] = [];
  const waiters: ((socket: WebSocket) => void)[] = [];
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    maxPayload: 0,
    verifyClient: (info, done) => done(info.req.headers["x-goog-api-key"] === HARNESS_KEY, 401),
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (socket, request) => {
    connections.push(socket);
    requests.push(request);
    socket.on("message", (data) => received.push(rawToString(data)));
    waiters.shift()?.(socket);
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.terminate();
        server.close(() => resolve());
      }),
  );
  const nextConnection = (): Promise<WebSocket> => new Promise((resolve) => waiters.push(resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections,
    requests,
    received,
    nextConnection,
  };
}

async function startGateway(
  options: Partial<HarnessGatewayOptions> & Pick<HarnessGatewayOptions, "target">,
): Promise<HarnessGateway> {
  const gateway = await createHarnessGateway({
    allowedOrigins: [ORIGIN],
    token: TOKEN,
    session: { workspaces: [workspace] },
    log: () => {},
    ...options,
  });
  cleanups.push(() => gateway.close());
  return gateway;
}

async function openBrowser(url: string, options: { origin?: string; protocols?: string[] } = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, options.protocols ?? [], {
    maxPayload: 0,
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  cleanups.push(() => socket.terminate());
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return socket;
}

function nextMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => socket.once("message", (data) => resolve(rawToString(data))));
}

function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve({ code: 1006, reason: "" });
  return new Promise((resolve) =>
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
  );
}

async function refusal(url: string, origin?: string, protocols?: string[]): Promise<number | undefined> {
  const headers: Record<string, string> = origin === undefined ? {} : { origin };
  const error = await new WebSocketTransport({
    url,
    headers,
    env: {},
    ...(protocols === undefined ? {} : { protocols }),
  })
    .connect()
    .then(
      async (channel) => {
        await channel.close();
        return undefined;
      },
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(SdkError);
  return (error as SdkError).details.httpCode as number | undefined;
}

/** Polls a condition for at most `boundMs`; the test asserts the outcome, not the time. */
async function eventually(condition: () => boolean, boundMs = 5_000): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > until) return false;
    await sleep(10);
  }
  return true;
}

describe("createHarnessGateway", () => {
  it("relays frames both ways and adds the harness key itself", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    const connected = harness.nextConnection();
    const browser = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    browser.send(INIT);
    browser.send("one");
    browser.send("two");
    const harnessSide = await connected;
    expect(harness.requests[0]?.headers["x-goog-api-key"]).toBe(HARNESS_KEY);
    expect(await eventually(() => harness.received.length === 3)).toBe(true);
    expect(JSON.parse(harness.received[0] ?? "").config.workspaces).toEqual([
      { filesystemWorkspace: { directory: workspace } },
    ]);
    expect(harness.received.slice(1)).toEqual(["one", "two"]);

    const reply = nextMessage(browser);
    harnessSide.send("from harness");
    expect(await reply).toBe("from harness");

    const big = "x".repeat(5 * 1024 * 1024);
    const bigReply = nextMessage(browser);
    harnessSide.send(big);
    expect((await bigReply).length).toBe(big.length);
    browser.send(big);
    expect(await eventually(() => harness.received.length === 4)).toBe(true);
    expect(harness.received[3]?.length).toBe(big.length);
    expect(gateway.connectionCount).toBe(1);
  });

  it("accepts the token as an antigravity.token.<token> subprotocol and echoes it", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    const browser = await openBrowser(gateway.url ?? "", { origin: ORIGIN, protocols: [`antigravity.token.${TOKEN}`] });
    expect(browser.protocol).toBe(`antigravity.token.${TOKEN}`);
  });

  it("refuses a foreign or missing Origin with 403", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    expect(await refusal(`${gateway.url}?token=${TOKEN}`, "http://evil.test")).toBe(403);
    expect(await refusal(`${gateway.url}?token=${TOKEN}`)).toBe(403);
    expect(harness.connections).toHaveLength(0);
  });

  it("refuses a wrong or missing token with 401", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    expect(await refusal(`${gateway.url}?token=wrong`, ORIGIN)).toBe(401);
    expect(await refusal(gateway.url ?? "", ORIGIN)).toBe(401);
    expect(await refusal(gateway.url ?? "", ORIGIN, ["antigravity.token.wrong"])).toBe(401);
    expect(harness.connections).toHaveLength(0);
  });

  it("accepts a token verifier function", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({
      target: { url: harness.url, apiKey: HARNESS_KEY },
      token: (token) => Promise.resolve(token.startsWith("session-")),
    });
    await openBrowser(`${gateway.url}?token=session-42`, { origin: ORIGIN });
    expect(await refusal(`${gateway.url}?token=other`, ORIGIN)).toBe(401);
  });

  it("caps concurrent connections with 503 and admits again once a client leaves", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY }, maxConnections: 1 });
    const first = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    expect(await refusal(`${gateway.url}?token=${TOKEN}`, ORIGIN)).toBe(503);
    first.close();
    expect(await eventually(() => gateway.connectionCount === 0)).toBe(true);
    await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    expect(gateway.connectionCount).toBe(1);
  });

  it("closes the harness socket when the browser closes", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    const connected = harness.nextConnection();
    const browser = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    browser.send(INIT);
    const harnessSide = await connected;
    const harnessClosed = closed(harnessSide);
    browser.close();
    expect((await harnessClosed).code).toBe(1000);
  });

  it("closes the browser with the reason when the harness ends the session or is unreachable", async () => {
    const harness = await startHarness();
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY } });
    const connected = harness.nextConnection();
    const browser = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    const browserClosed = closed(browser);
    browser.send(INIT);
    const harnessSide = await connected;
    expect(await eventually(() => harness.received.length === 1)).toBe(true);
    harnessSide.close(1000);
    expect(await browserClosed).toEqual({ code: 1000, reason: "harness closed the session" });

    const wrongKey = await startGateway({ target: { url: harness.url, apiKey: "not-the-key" } });
    const refused = await openBrowser(`${wrongKey.url}?token=${TOKEN}`, { origin: ORIGIN });
    const refusedClosed = closed(refused);
    refused.send(INIT);
    const refusedClose = await refusedClosed;
    expect(refusedClose.code).toBe(1011);
    expect(refusedClose.reason).toContain(`harness unavailable (${ErrorCode.PermissionDenied})`);
  });

  it("runs a subprocess harness per client and shuts it down when the browser leaves or reports its crash", async () => {
    const channels: { pid: number }[] = [];
    const transport = (): Transport => ({
      connect: async (options?: CallOptions): Promise<Channel> => {
        const channel = await new SubprocessTransport({ harnessPath: fakePath("fake-harness.mjs") }).connect(options);
        channels.push(channel);
        return channel;
      },
    });
    const gateway = await startGateway({ target: { transport } });
    const browser = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    const init = nextMessage(browser);
    browser.send(INIT);
    await init; // the fake harness echoes the rewritten first frame
    const echo = nextMessage(browser);
    browser.send("ping");
    expect(await echo).toBe("ping");
    const first = channels[0]?.pid ?? -1;
    browser.close();
    expect(await waitUntilGone(first)).toBe(true);

    const second = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    const secondEcho = nextMessage(second);
    second.send(INIT);
    await secondEcho;
    const secondClosed = closed(second);
    process.kill(channels[1]?.pid ?? -1, "SIGKILL");
    const close = await secondClosed;
    expect(close.code).toBe(1011);
    expect(close.reason).toContain(`harness connection lost (${ErrorCode.HarnessCrashed})`);
  });

  it("attaches to an existing http.Server on its own path and leaves other requests alone", async () => {
    const harness = await startHarness();
    const server: Server = createServer((_request, response) => response.end("page"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const gateway = await startGateway({ target: { url: harness.url, apiKey: HARNESS_KEY }, server, path: "/harness" });
    expect(gateway.url).toBeUndefined();
    expect(await (await fetch(`http://${base}/`)).text()).toBe("page");
    const browser = await openBrowser(`ws://${base}/harness?token=${TOKEN}`, { origin: ORIGIN });
    expect(browser.readyState).toBe(WebSocket.OPEN);
    expect(await refusal(`ws://${base}/other?token=${TOKEN}`, ORIGIN)).toBe(404);
  });

  it("closes every browser with 1001 when the gateway closes", async () => {
    const harness = await startHarness();
    const gateway = await createHarnessGateway({
      target: { url: harness.url, apiKey: HARNESS_KEY },
      allowedOrigins: [ORIGIN],
      token: TOKEN,
      session: { workspaces: [workspace] },
      log: () => {},
    });
    const browser = await openBrowser(`${gateway.url}?token=${TOKEN}`, { origin: ORIGIN });
    const browserClosed = closed(browser);
    await gateway.close();
    expect((await browserClosed).code).toBe(1001);
    expect(gateway.connectionCount).toBe(0);
  });
});
