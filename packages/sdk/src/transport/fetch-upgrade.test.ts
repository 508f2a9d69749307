import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { fetchUpgradeWebSocket } from "./fetch-upgrade.js";
import type { WebSocketConnector } from "./websocket-transport.js";

// The real path runs in workerd (test/workerd); these pin the request it makes and how answers map.

interface Recorded {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
}

function fakeFetch(answer: (recorded: Recorded) => Response | Promise<Response>): {
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  calls: Recorded[];
} {
  const calls: Recorded[] = [];
  return {
    calls,
    fetch: async (input, init) => {
      const recorded = {
        url: input,
        headers: { ...(init.headers as Record<string, string>) },
        signal: init.signal ?? undefined,
      };
      calls.push(recorded);
      return answer(recorded);
    },
  };
}

/** A Response with status 101 and a workerd-style `webSocket` (Node's Response refuses status 101). */
function switchingProtocols(webSocket: unknown): Response {
  const response = new Response(null, { status: 200 });
  Object.defineProperty(response, "status", { value: 101 });
  Object.defineProperty(response, "webSocket", { value: webSocket });
  return response;
}

async function rejection(promise: Promise<unknown>): Promise<SdkError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SdkError);
  return error as SdkError;
}

describe("fetchUpgradeWebSocket", () => {
  it("fetches the http:// form of a ws:// URL with Upgrade and the caller's headers, then accepts the socket", async () => {
    let accepted = 0;
    const socket = { readyState: 1, accept: () => void accepted++ };
    const { fetch, calls } = fakeFetch(() => switchingProtocols(socket));
    const result = await fetchUpgradeWebSocket(
      "ws://127.0.0.1:8765/path?x=1",
      { "x-goog-api-key": "KEY" },
      { fetch, protocols: ["a", "b"] },
    );
    expect(result).toBe(socket);
    expect(accepted).toBe(1);
    expect(calls).toEqual([
      {
        url: "http://127.0.0.1:8765/path?x=1",
        headers: { "x-goog-api-key": "KEY", Upgrade: "websocket", "Sec-WebSocket-Protocol": "a, b" },
        signal: undefined,
      },
    ]);
  });

  it("maps wss:// to https:// and leaves http(s) URLs alone", async () => {
    const { fetch, calls } = fakeFetch(() => switchingProtocols({ accept() {} }));
    await fetchUpgradeWebSocket("wss://harness.example/", {}, { fetch });
    await fetchUpgradeWebSocket(new URL("https://harness.example/ws"), {}, { fetch });
    expect(calls.map((c) => c.url)).toEqual(["https://harness.example/", "https://harness.example/ws"]);
  });

  it("refuses other schemes and non-URLs with InvalidArgument", async () => {
    const { fetch, calls } = fakeFetch(() => switchingProtocols({ accept() {} }));
    expect((await rejection(fetchUpgradeWebSocket("ftp://x/", {}, { fetch }))).code).toBe(ErrorCode.InvalidArgument);
    expect((await rejection(fetchUpgradeWebSocket("not a url", {}, { fetch }))).code).toBe(ErrorCode.InvalidArgument);
    expect(calls).toEqual([]);
  });

  it.each([401, 403])("turns HTTP %i into PermissionDenied with the status in details", async (status) => {
    const { fetch } = fakeFetch(() => new Response("bad key", { status }));
    const error = await rejection(fetchUpgradeWebSocket("ws://127.0.0.1:1/", { "x-goog-api-key": "wrong" }, { fetch }));
    expect(error.code).toBe(ErrorCode.PermissionDenied);
    expect(error.details).toEqual({ httpCode: status });
    expect(error.message).toContain("bad key");
  });

  it("turns a response that does not upgrade into Unavailable", async () => {
    const { fetch } = fakeFetch(() => new Response("use websockets", { status: 426 }));
    const error = await rejection(fetchUpgradeWebSocket("ws://127.0.0.1:1/", {}, { fetch }));
    expect(error.code).toBe(ErrorCode.Unavailable);
    expect(error.message).toContain("HTTP 426");
    const noSocket = fakeFetch(() => switchingProtocols(null));
    expect(
      (await rejection(fetchUpgradeWebSocket("ws://127.0.0.1:1/", {}, { fetch: noSocket.fetch }))).message,
    ).toContain("no webSocket");
  });

  it("turns a failed fetch into Unavailable naming the target", async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError("connection refused")));
    const error = await rejection(fetchUpgradeWebSocket("ws://127.0.0.1:9/", {}, { fetch }));
    expect(error.code).toBe(ErrorCode.Unavailable);
    expect(error.message).toContain("http://127.0.0.1:9/");
    expect(error.message).toContain("connection refused");
  });

  it("passes the signal to fetch and reports an abort as Canceled", async () => {
    const controller = new AbortController();
    const { fetch, calls } = fakeFetch(
      ({ signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    );
    const pending = fetchUpgradeWebSocket("ws://127.0.0.1:1/", {}, { fetch, signal: controller.signal });
    controller.abort();
    expect((await rejection(pending)).code).toBe(ErrorCode.Canceled);
    expect(calls[0]?.signal?.aborted).toBe(true);
    const already = await rejection(
      fetchUpgradeWebSocket("ws://127.0.0.1:1/", {}, { fetch, signal: AbortSignal.abort() }),
    );
    expect(already.code).toBe(ErrorCode.Canceled);
    expect(calls).toHaveLength(1);
  });

  it("reports timeoutMs as DeadlineExceeded", async () => {
    const { fetch } = fakeFetch(
      ({ signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    );
    expect((await rejection(fetchUpgradeWebSocket("ws://127.0.0.1:1/", {}, { fetch, timeoutMs: 10 }))).code).toBe(
      ErrorCode.DeadlineExceeded,
    );
  });

  it("fits WebSocketTransport's connect option as it is", () => {
    const connector: WebSocketConnector = fetchUpgradeWebSocket;
    expect(typeof connector).toBe("function");
  });
});
