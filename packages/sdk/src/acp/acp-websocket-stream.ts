import type * as acp from "@agentclientprotocol/sdk";
import { ErrorCode, SdkError } from "../errors.js";
import type { WebSocketEventLike, WebSocketLike } from "../transport/websocket-like.js";
import { redactUrl } from "../transport/websocket-errors.js";

/** Options of {@link acpWebSocketStream}. */
export interface AcpWebSocketStreamOptions {
  /** Subprotocols offered when the socket is opened from a URL, e.g. `antigravity.token.<token>` for `createAcpBridge`. */
  protocols?: string | string[];
}

/** `WebSocket.OPEN` and `WebSocket.CLOSING` of the WHATWG interface. */
const OPEN = 1;
const CLOSING = 2;

/**
 * The message stream `acpAgent({ stream })` takes — the library's `Stream` of JSON-RPC messages
 * (`@agentclientprotocol/sdk` 2.4 `dist/core/stream.d.ts`) — over a WebSocket, one message per
 * text frame, as `createAcpBridge` of `@antigravity-ts/node` serves it. Give a URL (opened with the
 * runtime's `WebSocket`) or an open or opening socket. Runs wherever a WHATWG `WebSocket` does.
 *
 * Unlike the library's experimental `createWebSocketStream` (which closes the stream silently),
 * a close the page did not ask for ends the stream with a typed error carrying the close code and
 * reason (the bridge's refusal reaches the user), and a frame that is not a JSON-RPC object is a
 * `ProtocolError`, not something to answer: the peer is the bridge, not an untrusted client.
 *
 * @example
 * const agent = Agent.builder()
 *   .connection(acpAgent({ stream: () => acpWebSocketStream(`wss://example.com/acp`, { protocols: [`antigravity.token.${token}`] }), cwd: "/" }))
 *   .allowAll()
 *   .build();
 */
export function acpWebSocketStream(
  target: string | URL | WebSocketLike,
  options: AcpWebSocketStreamOptions = {},
): acp.Stream {
  const socket = typeof target === "string" || target instanceof URL ? open(String(target), options) : target;
  const where = typeof target === "string" || target instanceof URL ? redactUrl(String(target)) : "the ACP bridge";
  let opened = socket.readyState === OPEN;
  let ended: SdkError | undefined;
  const whenOpen = new Promise<void>((resolve, reject) => {
    if (opened) return resolve();
    socket.addEventListener("open", () => {
      opened = true;
      resolve();
    });
    socket.addEventListener("close", (event) => reject(ended ?? closeError(where, event, opened)));
  });
  whenOpen.catch(() => undefined);
  // An error is always followed by a close, which ends the stream (and `ws` throws an error nobody listens to).
  socket.addEventListener("error", () => undefined);
  const readable = new ReadableStream<acp.AnyMessage>({
    start(controller) {
      const end = (error: SdkError | undefined): void => {
        if (ended !== undefined) return;
        ended = error ?? new SdkError(ErrorCode.ConnectionClosed, `${where} closed the connection`);
        try {
          if (error === undefined) controller.close();
          else controller.error(error);
        } catch {
          // The reader cancelled the stream first.
        }
      };
      socket.addEventListener("message", (event) => {
        if (ended !== undefined) return;
        const message = parseFrame(where, event.data);
        if (message instanceof SdkError) {
          end(message);
          socket.close(1000);
        } else controller.enqueue(message);
      });
      socket.addEventListener("close", (event) => end(closeError(where, event, opened)));
    },
    cancel() {
      closeSocket(socket);
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    async write(message) {
      await whenOpen;
      if (ended !== undefined || socket.readyState !== OPEN)
        throw ended ?? new SdkError(ErrorCode.ConnectionClosed, `${where} is closing; no message can be sent`);
      socket.send(JSON.stringify(message));
    },
    close() {
      closeSocket(socket);
    },
    abort() {
      closeSocket(socket);
    },
  });
  return { readable, writable };
}

function open(url: string, options: AcpWebSocketStreamOptions): WebSocketLike {
  const WebSocketClass = (
    globalThis as { WebSocket?: new (url: string, protocols?: string | string[]) => WebSocketLike }
  ).WebSocket;
  if (WebSocketClass === undefined)
    throw new SdkError(
      ErrorCode.Unsupported,
      "this runtime has no global WebSocket: pass an open socket to acpWebSocketStream (on Node < 22, `ws`'s WebSocket)",
    );
  return options.protocols === undefined ? new WebSocketClass(url) : new WebSocketClass(url, options.protocols);
}

/** A frame as a JSON-RPC message: a JSON object in a text frame (ACP has no batches), else `ProtocolError`. */
function parseFrame(where: string, data: unknown): acp.AnyMessage | SdkError {
  if (typeof data !== "string")
    return new SdkError(ErrorCode.ProtocolError, `${where} sent a binary frame; ACP messages are JSON text frames`);
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data;
    return new SdkError(ErrorCode.ProtocolError, `${where} sent a frame that is not JSON: ${JSON.stringify(shown)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return new SdkError(ErrorCode.ProtocolError, `${where} sent a frame that is not a JSON-RPC message object`);
  return value as acp.AnyMessage;
}

/**
 * How the socket's end reads: a close before it opened is `Unavailable` (browsers hide a refused
 * upgrade's status: the token, the origin, the bridge's limits); 1000 is the stream's normal end;
 * the bridge's refusals (1008 policy, 1009 too big, 1011 the agent failed) are `ConnectionClosed`
 * with `details: { closeCode, closeReason }`.
 */
function closeError(where: string, event: WebSocketEventLike, opened: boolean): SdkError | undefined {
  const code = event.code ?? 1006;
  const reason = event.reason ?? "";
  const details = { closeCode: code, closeReason: reason };
  if (!opened)
    return new SdkError(
      ErrorCode.Unavailable,
      `could not connect to ${where} (code ${code}${reason === "" ? "" : `: ${reason}`}); check the bridge's token and allowed origins, and that it is running there`,
      { details },
    );
  if (code === 1000) return undefined;
  const why = reason || (code === 1006 ? "no close frame; the bridge stopped or the network dropped" : "");
  return new SdkError(
    ErrorCode.ConnectionClosed,
    `${where} closed the connection (code ${code}${why ? `: ${why}` : ""})`,
    {
      details,
    },
  );
}

function closeSocket(socket: WebSocketLike): void {
  if (socket.readyState < CLOSING) socket.close(1000);
}
