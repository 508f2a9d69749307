import type { ModelMessage, ModelRequest } from "../model/provider.js";

/** What a scripted call can refer to: the prompt, regex groups and the tool results of this turn. */
export interface ScriptContext {
  prompt: string;
  match: readonly string[];
  /** Named groups of the turn's regex (`{{match.NAME}}`, and `$fromSchema` properties of that name). */
  groups: Readonly<Record<string, string>>;
  /** Response of the latest tool result of the turn. */
  lastResult: Record<string, unknown> | undefined;
  /** Latest response per tool name in this turn (`$client` included under its real name). */
  results: ReadonlyMap<string, Record<string, unknown>>;
  /** Name of the client tool `$client` stands for. */
  clientTool: string | undefined;
  /** The system instruction of the call (`{{system}}`): what skills and rules files added shows there. */
  system: string;
}

/** Where the current prompt sits and how many model calls answered it so far. */
export interface TurnPosition {
  prompt: string;
  promptIndex: number;
  modelCalls: number;
}

/**
 * Finds the latest user message and counts the model messages after it. The prompt is the
 * newest part of a merged message (`promptStarts`): after a turn halted before the model said
 * anything, the halted prompt and the next one reach the model as one message, and the
 * scripted model answers the next one.
 */
export function turnPosition(messages: readonly ModelMessage[]): TurnPosition {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as ModelMessage;
    if (message.role === "user") {
      const modelCalls = messages.slice(i + 1).filter((m) => m.role === "model").length;
      return { prompt: message.text.slice(message.promptStarts?.at(-1) ?? 0), promptIndex: i, modelCalls };
    }
  }
  return { prompt: "", promptIndex: -1, modelCalls: 0 };
}

/** Builds the interpolation context of the current model call. */
export function scriptContext(
  request: ModelRequest,
  position: TurnPosition,
  found: { match: readonly string[]; groups: Readonly<Record<string, string>> },
  clientTool: string | undefined,
): ScriptContext {
  const results = new Map<string, Record<string, unknown>>();
  let lastResult: Record<string, unknown> | undefined;
  for (const message of request.messages.slice(position.promptIndex + 1)) {
    if (message.role !== "tool") continue;
    for (const result of message.results) {
      results.set(result.name, result.response);
      lastResult = result.response;
    }
  }
  return {
    prompt: position.prompt,
    match: found.match,
    groups: found.groups,
    lastResult,
    results,
    clientTool,
    system: request.systemInstruction,
  };
}

const PLACEHOLDER = /\{\{\s*([^}#/]+?)\s*\}\}/g;
/** `{{#EXPR}}…{{/EXPR}}`: the text inside only when EXPR has a value (sections do not nest). */
const SECTION = /\{\{#\s*([^}]+?)\s*\}\}([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;

/**
 * Replaces `{{prompt}}`, `{{system}}`, `{{match.N}}`, `{{match.NAME}}`, `{{result}}`, `{{result.a.b}}`, `{{results.NAME}}` and
 * `{{results.NAME.a.b}}` (NAME may be `$client`). Objects render as JSON; a missing value as "n/a".
 * A section `{{#EXPR}}…{{/EXPR}}` keeps its text only when EXPR has a value (e.g. a tool that ran),
 * so an answer need not say "n/a" about a tool the session does not have.
 */
export function interpolate(template: string, context: ScriptContext): string {
  const sections = template.replace(SECTION, (_, expression: string, inner: string) => {
    const value = lookup(expression, context);
    return value === undefined || value === null ? "" : inner;
  });
  return sections.replace(PLACEHOLDER, (_, expression: string) => render(lookup(expression, context)));
}

/**
 * Interpolates every string inside a value. A string that is exactly one placeholder becomes the
 * referenced value itself (so `"{{result.sum}}"` passes a number through unchanged).
 */
export function interpolateValue(value: unknown, context: ScriptContext): unknown {
  if (typeof value === "string") {
    const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value);
    if (whole !== null) return lookup(whole[1] as string, context) ?? "n/a";
    return interpolate(value, context);
  }
  if (Array.isArray(value)) return value.map((item) => interpolateValue(item, context));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateValue(item, context)]));
  }
  return value;
}

function lookup(expression: string, context: ScriptContext): unknown {
  const [head, ...path] = expression.split(".");
  let value: unknown;
  if (head === "prompt") value = context.prompt;
  else if (head === "system") value = context.system;
  else if (head === "match")
    value = path[0] !== undefined && Object.hasOwn(context.groups, path[0]) ? context.groups : context.match;
  else if (head === "result") value = context.lastResult;
  else if (head === "results") {
    const name = path.shift();
    value = context.results.get(name === "$client" ? (context.clientTool ?? "") : (name ?? ""));
  } else return undefined;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function render(value: unknown): string {
  if (value === undefined || value === null) return "n/a";
  return typeof value === "string" ? value : JSON.stringify(value);
}
