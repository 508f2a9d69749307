import { BUILTIN_TOOL_NAMES } from "../tools/registry.js";
import { createCallIdGenerator } from "./call-ids.js";
import { estimatedUsage } from "../model/usage.js";
import { DEMO_SCRIPT } from "./demo-script.js";
import { exampleFromSchema } from "./schema-example.js";
import { interpolate, interpolateValue, scriptContext, turnPosition, type ScriptContext } from "./script-context.js";
import type { ScriptCall, ScriptFile, ScriptToolCall, ScriptTurn } from "./script-format.js";
import {
  ModelError,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ToolDeclaration,
} from "../model/provider.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** Options of {@link createScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** The script; the built-in demo when absent. */
  script?: ScriptFile;
}

/** Script calls merged into one model call (calls without tool calls need no round trip). */
interface PlannedCall {
  thinking: string;
  text: string;
  toolCalls: ScriptToolCall[];
  chunkDelayMs: number;
  chunkWords: number;
  error?: { message: string; httpCode?: number };
}

/**
 * The offline, deterministic model. Each `generate()` finds the latest user message in the
 * transcript, picks the first script turn matching it, counts the model calls already made for
 * it and plays the next scripted call: streamed thinking and text (several deltas), tool calls
 * and usage derived from text lengths (ceil(chars / 4)). Text and arguments may interpolate the
 * prompt and the results of earlier tool calls (`{{result.sum}}`). Call ids are `call_<n>`, past
 * every such id already in the conversation (like the Gemini and OpenAI providers' own ids).
 */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): ModelProvider {
  const script = options.script ?? DEMO_SCRIPT;
  const callIds = createCallIdGenerator();
  return {
    name: "scripted",
    async *generate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      signal.throwIfAborted();
      // A resumed conversation carries ids from an earlier session: new ones never repeat them.
      callIds.observe(request.messages);
      const position = turnPosition(request.messages);
      const found = findTurn(script.turns, position.prompt);
      const clientTool = request.tools.find((tool) => !BUILTIN_TOOL_NAMES.has(tool.name))?.name;
      const offered = new Map(request.tools.map((tool) => [tool.name, tool] as const));
      const plan = found === undefined ? [] : planCalls(found.turn.calls, offered, clientTool);
      const call = plan[position.modelCalls] ?? fallbackCall(found === undefined, position.prompt);
      const context = scriptContext(request, position, found ?? { match: [], groups: {} }, clientTool);
      const thinking = interpolate(call.thinking, context);
      const text = interpolate(call.text, context);
      const pauses = new Pauses(signal);
      try {
        for (const delta of chunk(thinking, call.chunkWords)) {
          await pauses.pause(call.chunkDelayMs);
          yield { type: "thinking", delta };
        }
        for (const delta of chunk(text, call.chunkWords)) {
          await pauses.pause(call.chunkDelayMs);
          yield { type: "text", delta };
        }
      } finally {
        pauses.dispose();
      }
      if (call.error !== undefined) throw new ModelError(call.error.message, call.error.httpCode ?? 0);
      const calls = call.toolCalls.map((toolCall) => ({
        id: callIds.next(),
        ...resolveToolCall(toolCall, offered, clientTool, context),
      }));
      for (const toolCall of calls) yield { type: "toolCall", call: toolCall };
      yield { type: "usage", usage: estimatedUsage(request, { text, thinking, toolCalls: calls }) };
    },
  };
}

function findTurn(
  turns: readonly ScriptTurn[],
  prompt: string,
): { turn: ScriptTurn; match: string[]; groups: Record<string, string> } | undefined {
  for (const turn of turns) {
    if (turn.match !== undefined && !prompt.toLowerCase().includes(turn.match.toLowerCase())) continue;
    if (turn.regex !== undefined) {
      const match = new RegExp(turn.regex, turn.flags ?? "i").exec(prompt);
      if (match === null) continue;
      const groups = Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, text]) => [name, text ?? ""]));
      return { turn, match: [...match].map((group) => group ?? ""), groups };
    }
    return { turn, match: [prompt], groups: {} };
  }
  return undefined;
}

/** Merges each run of calls without (available) tool calls into the next call that has some. */
function planCalls(
  calls: readonly ScriptCall[],
  offered: ReadonlyMap<string, ToolDeclaration>,
  clientTool: string | undefined,
): PlannedCall[] {
  const plan: PlannedCall[] = [];
  let current: PlannedCall | undefined;
  for (const call of calls) {
    const toolCalls = (call.toolCalls ?? []).filter(
      (tc) => tc.ifAvailable !== true || offered.has(toolName(tc.name, clientTool)),
    );
    current = {
      thinking: joinText(current?.thinking, call.thinking, "\n"),
      text: joinText(current?.text, call.text, "\n\n"),
      toolCalls,
      chunkDelayMs: Math.max(current?.chunkDelayMs ?? 0, call.chunkDelayMs ?? 0),
      chunkWords: call.chunkWords ?? current?.chunkWords ?? 3,
      ...definedProperties({ error: call.error }),
    };
    if (toolCalls.length > 0 || call.error !== undefined) {
      plan.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) plan.push(current);
  return plan;
}

function fallbackCall(unmatched: boolean, prompt: string): PlannedCall {
  const text = unmatched
    ? `(scripted model) No scripted reply matches the prompt ${JSON.stringify(prompt.slice(0, 200))}.`
    : "(scripted model) The script has no further calls for this prompt.";
  return { thinking: "", text, toolCalls: [], chunkDelayMs: 0, chunkWords: 3 };
}

function resolveToolCall(
  call: ScriptToolCall,
  offered: ReadonlyMap<string, ToolDeclaration>,
  clientTool: string | undefined,
  context: ScriptContext,
): { name: string; args: Record<string, unknown> } {
  const name = toolName(call.name, clientTool);
  if (call.args === "$fromSchema") {
    const args = exampleFromSchema(offered.get(name)?.parameters ?? { type: "object" }, context.groups);
    return {
      name,
      args: typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
    };
  }
  return { name, args: interpolateValue(call.args ?? {}, context) as Record<string, unknown> };
}

function toolName(name: string, clientTool: string | undefined): string {
  return name === "$client" ? (clientTool ?? "$client") : name;
}

function joinText(before: string | undefined, next: string | undefined, separator: string): string {
  if (before === undefined || before === "") return next ?? "";
  return next === undefined || next === "" ? before : `${before}${separator}${next}`;
}

/** Splits text into chunks of `words` words, keeping all whitespace (chunks concatenate to the text). */
export function chunk(text: string, words: number): string[] {
  const tokens = text.match(/\s*\S+\s*/g) ?? (text === "" ? [] : [text]);
  const size = Math.max(1, Math.floor(words));
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += size) chunks.push(tokens.slice(i, i + size).join(""));
  return chunks;
}

/**
 * The pauses between a call's chunks, ended early by `signal`. One abort listener serves the whole
 * call: adding and removing one per pause (`timers/promises` with a signal does) cost more than the
 * timer, about 8% of a listening harness streaming 1,000 sessions at once.
 */
class Pauses {
  readonly #signal: AbortSignal;
  #pending: { timer: ReturnType<typeof setTimeout>; reject: (reason: unknown) => void } | undefined;
  readonly #onAbort = (): void => {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    pending.reject(this.#signal.reason);
  };

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Resolves after `ms` (at once for 0); rejects with the signal's reason once it is aborted. */
  async pause(ms: number): Promise<void> {
    this.#signal.throwIfAborted();
    if (ms <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending = undefined;
        resolve();
      }, ms);
      this.#pending = { timer, reject };
    });
    this.#signal.throwIfAborted();
  }

  dispose(): void {
    this.#signal.removeEventListener("abort", this.#onAbort);
    if (this.#pending !== undefined) clearTimeout(this.#pending.timer);
    this.#pending = undefined;
  }
}
