import WebSocket from "ws";
import { frameProblem } from "./frame-check.js";
import { WAIT_MS } from "@antigravity-ts/test-kit";

/** A decoded harness frame (OutputEvent JSON); tests read it as plain JSON on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>;

/**
 * A plain `ws` client speaking raw JSON text frames: no SDK code, so the harness and the SDK
 * cannot share a misunderstanding. Received frames are queued; `next`/`until` consume them in
 * order. Every frame is checked for wire fidelity ({@link frameProblem}); the first bad one makes
 * every later wait fail.
 */
export class TestClient {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #cursor = 0;
  #wake: (() => void) | undefined;
  #closeInfo: { code: number; reason: string } | undefined;
  #problem: string | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data, isBinary) => {
      const frame = isBinary ? { binary: true } : (JSON.parse(data.toString()) as Frame);
      const problem = frameProblem(frame, BigInt(this.frames.length + 1));
      if (problem !== undefined)
        this.#problem ??= `frame ${this.frames.length + 1} breaks the wire format: ${problem}\n${JSON.stringify(frame).slice(0, 1000)}`;
      this.frames.push(frame);
      this.#wake?.();
    });
    this.closed = new Promise((resolve) => {
      socket.once("close", (code, reason) => {
        this.#closeInfo = { code, reason: reason.toString() };
        resolve(this.#closeInfo);
        this.#wake?.();
      });
    });
  }

  /** Connects with the given key; rejects with the HTTP status on refusal. */
  static connect(port: number, apiKey: string | undefined, host = "127.0.0.1"): Promise<TestClient> {
    const socket = new WebSocket(
      `ws://${host}:${port}/`,
      apiKey === undefined ? {} : { headers: { "x-goog-api-key": apiKey } },
    );
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new TestClient(socket)));
      socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
      socket.once("error", reject);
    });
  }

  /** Sends one JSON text frame. */
  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Sends raw data (text or binary). */
  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  /** Consumes frames up to and including the first that satisfies `predicate`; returns all of them. */
  async until(predicate: (frame: Frame) => boolean, what = "a matching frame"): Promise<Frame[]> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      if (this.#problem !== undefined) throw new Error(this.#problem);
      for (let i = this.#cursor; i < this.frames.length; i++) {
        if (predicate(this.frames[i] as Frame)) {
          const taken = this.frames.slice(this.#cursor, i + 1);
          this.#cursor = i + 1;
          return taken;
        }
      }
      if (this.#closeInfo !== undefined)
        throw new Error(
          `connection closed (${this.#closeInfo.code} ${this.#closeInfo.reason}) while waiting for ${what}; unread: ${JSON.stringify(this.frames.slice(this.#cursor)).slice(0, 2000)}`,
        );
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `no ${what} within ${WAIT_MS} ms; unread: ${JSON.stringify(this.frames.slice(this.#cursor)).slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#wake = () => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve();
        };
      });
    }
  }

  /** Consumes and returns the first frame satisfying `predicate`. */
  async next(predicate: (frame: Frame) => boolean, what?: string): Promise<Frame> {
    const frames = await this.until(predicate, what);
    return frames[frames.length - 1] as Frame;
  }

  /** Frames received but not yet consumed. */
  unread(): Frame[] {
    return this.frames.slice(this.#cursor);
  }

  /** Sends the init frame and returns the `initializeConversationResponse`. */
  async init(config: Frame): Promise<Frame> {
    this.send({ config });
    const frame = await this.next(
      (f) => f["initializeConversationResponse"] !== undefined,
      "initializeConversationResponse",
    );
    return frame["initializeConversationResponse"] as Frame;
  }

  /** Sends a text prompt. */
  prompt(text: string): void {
    this.send({ userInput: { parts: [{ text }] } });
  }

  /** Consumes frames until the main trajectory's FULLY_IDLE or CANCELLED; returns the turn's frames. */
  turn(): Promise<Frame[]> {
    return this.until(
      (f) => ["STATE_FULLY_IDLE", "STATE_CANCELLED"].includes(f["trajectoryStateUpdate"]?.state),
      "the end of the turn",
    );
  }

  close(): void {
    this.socket.close();
  }
}

/** The `stepUpdate`s among `frames`. */
export function steps(frames: readonly Frame[]): Frame[] {
  return frames.filter((f) => f["stepUpdate"] !== undefined).map((f) => f["stepUpdate"] as Frame);
}

/** The latest update of each step among `frames`, by index. */
export function finalSteps(frames: readonly Frame[]): Frame[] {
  const byIndex = new Map<number, Frame>();
  for (const step of steps(frames)) byIndex.set(step["stepIndex"] ?? 0, step);
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, step]) => step);
}

/** Explicit `HarnessSideTools` switches (§3: always send `enabled`), all built-ins on. */
export function allTools(overrides: Frame = {}): Frame {
  return {
    find: { enabled: true },
    runCommand: { enabled: true, maxTimeoutMs: 0, enableDaemonCommands: false },
    subagents: { enabled: false },
    userQuestions: { enabled: true },
    fileEdit: { enabled: true },
    viewFile: { enabled: true },
    writeToFile: { enabled: true },
    grepSearch: { enabled: true },
    listDir: { enabled: true },
    generateImage: { enabled: false },
    searchWeb: { enabled: false },
    readUrlContent: { enabled: false },
    ...overrides,
  };
}

/** A HarnessConfig like upstream sends (§22), for `workspace`. */
export function harnessConfig(workspace: string, extra: Frame = {}): Frame {
  return {
    cascadeId: "",
    harnessSideTools: allTools(),
    compactionThreshold: 0,
    workspaces: [{ filesystemWorkspace: { directory: workspace } }],
    finishToolSchemaJson: "",
    models: [],
    agentBehavior: "AGENT_BEHAVIOR_AUTONOMOUS",
    ...extra,
  };
}
