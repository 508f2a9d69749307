import {
  ErrorCode,
  SdkError,
  createChannelPair,
  type Channel,
  type InMemoryChannel,
  type Transport,
} from "@antigravity-ts/sdk";
import { peerCloseError, throwIfAborted } from "@antigravity-ts/sdk/internal";
import type { ClientFrame, ClientPort } from "../loop/client-port.js";
import { createLogger, type Logger } from "../log.js";
import type { ScriptFile } from "../providers/script-format.js";
import { SessionHost } from "../session/session-host.js";
import { createMemorySessionStore, type SessionStore } from "../loop/stored-sessions.js";
import { commandEnvironment } from "../tools/command-env.js";

/** Options of {@link createInMemoryHarness}. */
export interface InMemoryHarnessOptions {
  /** Workspace of sessions whose config names none; file and command tools act in it. */
  workspace: string;
  /** Script of the scripted model (the offline demo when absent and `env` selects no other model). */
  script?: ScriptFile | undefined;
  /** Where sessions are saved; default a fresh in-memory store. */
  store?: SessionStore | undefined;
  /** Environment for model selection (`ANTIGRAVITY_MODEL_PROVIDER`, `GEMINI_API_KEY` …); default none: the scripted model. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Environment of tool subprocesses; default `commandEnvironment(process.env)`. */
  toolEnv?: Readonly<Record<string, string>> | undefined;
  /** Where the harness logs; default nowhere. */
  log?: Logger | undefined;
  /** Injected into HTTP model providers. */
  fetch?: typeof fetch | undefined;
  /** Time limit of one file-tool call on its worker thread, in ms (default 30 s). */
  toolTimeoutMs?: number | undefined;
  /** How long a session whose client left during a tool confirmation keeps that turn, in ms (default 10 min; 0 = not at all). */
  confirmationHoldMs?: number | undefined;
}

/** The reference harness in this process: a `Transport` whose every `connect()` is a new session. */
export interface InMemoryHarness extends Transport {
  /** Sessions currently connected. */
  readonly sessionCount: number;
  /** Closes every session (as a harness shutting down: code 1001), saves them and stops the tool workers. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Names the in-memory harness in the errors its channels end with. */
const MEMORY_URL = "memory://harness";

/**
 * The real reference harness — the same sessions, turn loop, tools, hooks, policies and
 * persistence as `antigravity-harness` — over the SDK's in-memory channel pair instead of a
 * socket: no process, no port, no key. For tests that need a real peer in milliseconds, like
 * connect-es's `createRouterTransport`; a frame goes from `channel.send` to the session's port
 * and back without serialisation beyond the JSON text of the protocol.
 *
 * @example
 * await using harness = createInMemoryHarness({ workspace, script: parseScript(json) });
 * const agent = Agent.builder().transport(harness).allowAll().build();
 */
export function createInMemoryHarness(options: InMemoryHarnessOptions): InMemoryHarness {
  const log = options.log ?? createLogger({ write: () => {} });
  const host = new SessionHost({
    store: options.store ?? createMemorySessionStore(),
    workspace: options.workspace,
    toolEnv: options.toolEnv ?? commandEnvironment(process.env),
    env: options.env ?? {},
    log,
    script: options.script,
    fetch: options.fetch,
    toolTimeoutMs: options.toolTimeoutMs,
    confirmationHoldMs: options.confirmationHoldMs,
  });
  let closed = false;
  const close = (): Promise<void> => {
    closed = true;
    return host.close();
  };
  return {
    async connect(callOptions): Promise<Channel> {
      throwIfAborted(callOptions?.signal);
      if (closed)
        throw new SdkError(
          ErrorCode.Unavailable,
          "the in-memory harness is closed; create a new one with createInMemoryHarness()",
        );
      const [client, server] = createChannelPair();
      host.accept(channelClientPort(server, log));
      return client;
    },
    get sessionCount() {
      return host.sessionCount;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Adapts the harness end of a channel pair to a session's {@link ClientPort}. A frame is written
 * once handed to the client's queue (unbounded, so the port never reports backpressure). A close
 * with a code other than 1000 ends the client's `frames()` with the error a WebSocket close with
 * that code and reason gives (`peerCloseError`), so SDK code sees what it would over a socket.
 */
function channelClientPort(channel: InMemoryChannel, log: Logger): ClientPort {
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const source = channel.frames()[Symbol.asyncIterator]();
  const next = async (): Promise<IteratorResult<ClientFrame, undefined>> => {
    try {
      const result = await source.next();
      if (result.done !== true) return { done: false, value: { text: result.value } };
    } catch {
      // The client dropped the connection: for the session, a disconnect like any other.
    }
    markClosed();
    return { done: true, value: undefined };
  };
  // `return()` keeps the frames not yet read for the next reader (ClientPort.frames).
  const frames: AsyncIterable<ClientFrame> = {
    [Symbol.asyncIterator]: () => ({ next, return: () => Promise.resolve({ done: true, value: undefined }) }),
  };
  const end = (error: SdkError | undefined): void => {
    if (!channel.closed) {
      if (error === undefined) void channel.close();
      else channel.drop(error);
    }
    markClosed();
  };
  return {
    frames: () => frames,
    get open() {
      return !channel.closed;
    },
    send(frame, written) {
      if (!channel.closed) channel.send(frame);
      queueMicrotask(written);
    },
    close: (code, reason) => end(peerCloseError(MEMORY_URL, code, reason)),
    terminate(error) {
      log.warn(`connection error: ${error.message}`);
      end(peerCloseError(MEMORY_URL, 1006, error.message));
    },
    closed,
  };
}
