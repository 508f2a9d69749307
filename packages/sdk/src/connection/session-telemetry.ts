import type { TurnObserver, Turn, TurnOutcome } from "./turn.js";
import { copyUsage, subtractUsage } from "../usage.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { ClientToolResult } from "../tools/tool-runner.js";
import type { ToolCall, UsageMetadata } from "../step.js";
import {
  contextWithSpan,
  OTEL_STATUS_ERROR,
  OtelSpanKind,
  ROOT_CONTEXT,
  type OtelContext,
  type OtelSpan,
  type OtelTracer,
} from "../telemetry/otel-shapes.js";

/*
 * Span and attribute names follow the OpenTelemetry GenAI semantic conventions (status
 * Development; semantic-conventions v1.41.0 docs/gen-ai/gen-ai-agent-spans.md and
 * gen-ai-spans.md, since continued in open-telemetry/semantic-conventions-genai):
 * - `invoke_agent {gen_ai.agent.name}` (kind CLIENT: the agent runs in the harness) — here one
 *   span per session, from `start()` to `stop()`;
 * - `chat` (kind CLIENT) — one per turn (the harness makes the model calls; the turn is what a
 *   client sees of them), with `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens`;
 * - `execute_tool {gen_ai.tool.name}` (kind INTERNAL) with `gen_ai.tool.name`,
 *   `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function`;
 * - every span carries `gen_ai.operation.name` and `gen_ai.conversation.id`; a failure sets
 *   status ERROR and `error.type` (an `ErrorCode`, or `tool_error`).
 * The conventions define no turn counter: `antigravity.turn.index` (0-based, per session) is ours.
 */
export const GenAiAttributes = {
  operationName: "gen_ai.operation.name",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  errorType: "error.type",
  turnIndex: "antigravity.turn.index",
  turnSolicited: "antigravity.turn.solicited",
  turnCanceled: "antigravity.turn.canceled",
} as const;

/** What {@link SessionTelemetry} reads from its connection. */
export interface TelemetrySource {
  readonly conversationId: string;
  readonly usage: { readonly total: UsageMetadata };
}

/** Options of {@link SessionTelemetry}. */
export interface SessionTelemetryOptions {
  /** `gen_ai.agent.name` and the `invoke_agent` span's name suffix. Default `"antigravity"`. */
  agentName?: string;
  /** The context the session span starts in (e.g. `context.active()` for a parent span). Default: a root span. */
  parentContext?: OtelContext;
}

/**
 * The spans of one agent session through a caller's tracer: `invoke_agent` for the session,
 * `chat` for each turn under it, `execute_tool` for each client tool call under its turn. Never
 * throws into the session: a tracer that throws loses its span, nothing else.
 *
 * @example
 * const telemetry = new SessionTelemetry(trace.getTracer("my-app"));
 * telemetry.startSession();
 * // ... createHarnessConnection({ ..., telemetry }) ...
 * telemetry.endSession(connection);
 */
export class SessionTelemetry {
  readonly #tracer: OtelTracer;
  readonly #agentName: string;
  readonly #parent: OtelContext;
  #session: OtelSpan | undefined;
  #sessionContext: OtelContext;
  #source: TelemetrySource | undefined;
  #turnCount = 0;
  readonly #turns = new WeakMap<Turn, OtelContext>();

  constructor(tracer: OtelTracer, options: SessionTelemetryOptions = {}) {
    this.#tracer = tracer;
    this.#agentName = options.agentName ?? "antigravity";
    this.#parent = options.parentContext ?? ROOT_CONTEXT;
    this.#sessionContext = this.#parent;
  }

  /** Starts the `invoke_agent` span (once). */
  startSession(): void {
    if (this.#session !== undefined) return;
    this.#session = this.#start(
      `invoke_agent ${this.#agentName}`,
      OtelSpanKind.CLIENT,
      { [GenAiAttributes.operationName]: "invoke_agent", [GenAiAttributes.agentName]: this.#agentName },
      this.#parent,
    );
    if (this.#session !== undefined) this.#sessionContext = contextWithSpan(this.#parent, this.#session);
  }

  /** The session is connected: its conversation id and usage become known. */
  connected(source: TelemetrySource): void {
    this.#source = source;
    safely(() => this.#session?.setAttribute(GenAiAttributes.conversationId, source.conversationId));
  }

  /** Ends the `invoke_agent` span with the session's total usage, and `error` as its status when given. */
  endSession(error?: unknown): void {
    const span = this.#session;
    if (span === undefined) return;
    this.#session = undefined;
    if (this.#source !== undefined) setUsage(span, this.#source.usage.total);
    if (error !== undefined) setError(span, SdkError.from(error));
    safely(() => span.end());
  }

  /** `observer` with a `chat` span around every turn it is told of (the connection's turn seam, §6). */
  observeTurns(observer: TurnObserver, source: TelemetrySource): TurnObserver {
    this.#source ??= source;
    return {
      turnStarted: (turn) => {
        this.#turnStarted(turn, source);
        observer.turnStarted(turn);
      },
    };
  }

  /** Runs a client tool call (§7) inside an `execute_tool` span, a child of its turn's `chat` span. */
  async executeTool(call: ToolCall, turn: Turn, run: () => Promise<ClientToolResult>): Promise<ClientToolResult> {
    const attributes = {
      [GenAiAttributes.operationName]: "execute_tool",
      [GenAiAttributes.toolName]: call.name,
      [GenAiAttributes.toolCallId]: call.id,
      [GenAiAttributes.toolType]: "function",
      ...this.#conversationAttribute(),
    };
    const span = this.#start(
      `execute_tool ${call.name}`,
      OtelSpanKind.INTERNAL,
      attributes,
      this.#turns.get(turn) ?? this.#sessionContext,
    );
    let result: ClientToolResult | undefined;
    try {
      result = await run();
      return result;
    } finally {
      if (span !== undefined) {
        if (result === undefined) setError(span, new SdkError(ErrorCode.Internal, "the tool runner failed"));
        else if (result.error !== undefined) setError(span, new Error(result.error), "tool_error");
        safely(() => span.end());
      }
    }
  }

  #turnStarted(turn: Turn, source: TelemetrySource): void {
    const index = this.#turnCount++;
    const attributes = {
      [GenAiAttributes.operationName]: "chat",
      [GenAiAttributes.turnIndex]: index,
      [GenAiAttributes.turnSolicited]: turn.solicited,
      ...this.#conversationAttribute(),
    };
    const span = this.#start("chat", OtelSpanKind.CLIENT, attributes, this.#sessionContext);
    if (span === undefined) return;
    this.#turns.set(turn, contextWithSpan(this.#sessionContext, span));
    const totalAtStart = copyUsage(source.usage.total);
    void turn.over().then((outcome) => this.#turnEnded(span, outcome, subtractUsage(source.usage.total, totalAtStart)));
  }

  #turnEnded(span: OtelSpan, outcome: TurnOutcome, usage: UsageMetadata): void {
    setUsage(span, usage);
    if (outcome.error?.code === ErrorCode.Canceled)
      safely(() => span.setAttribute(GenAiAttributes.turnCanceled, true)); // the user's stop is no failure
    else if (outcome.error !== undefined) setError(span, outcome.error);
    safely(() => span.end());
  }

  #conversationAttribute(): Record<string, string> {
    const id = this.#source?.conversationId;
    return id === undefined || id === "" ? {} : { [GenAiAttributes.conversationId]: id };
  }

  #start(
    name: string,
    kind: number,
    attributes: Record<string, string | number | boolean>,
    context: OtelContext,
  ): OtelSpan | undefined {
    try {
      return this.#tracer.startSpan(name, { kind, attributes }, context);
    } catch {
      return undefined;
    }
  }
}

function setUsage(span: OtelSpan, usage: UsageMetadata): void {
  safely(() => {
    span.setAttribute(GenAiAttributes.inputTokens, usage.promptTokenCount);
    span.setAttribute(GenAiAttributes.outputTokens, usage.candidatesTokenCount);
  });
}

function setError(span: OtelSpan, error: Error, type?: string): void {
  safely(() => {
    span.recordException(error);
    span.setStatus({ code: OTEL_STATUS_ERROR, message: error.message });
    span.setAttribute(GenAiAttributes.errorType, type ?? (error instanceof SdkError ? error.code : error.name));
  });
}

/** Runs a tracer call; a throwing tracer never breaks the session. */
function safely(action: () => unknown): void {
  try {
    action();
  } catch {
    // telemetry is best effort
  }
}
