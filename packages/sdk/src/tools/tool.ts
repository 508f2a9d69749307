import { ErrorCode, SdkError } from "../errors.js";

/** A JSON Schema object describing a tool's arguments (Gemini-API style, protocol §5.1). */
export type JsonSchema = { readonly [key: string]: unknown };

/** The schema sent for a tool that takes no arguments (protocol §5.1). */
export const NO_ARGUMENTS_SCHEMA: JsonSchema = Object.freeze({ type: "object", properties: {} });

/** What a client tool receives besides its arguments. */
export interface ToolContext {
  /** The conversation the call belongs to. */
  readonly conversationId: string;
  /** The harness's id of this call. */
  readonly callId: string;
  /** Aborted when the turn is halted or the connection closes: stop work and return. */
  readonly signal: AbortSignal;
  /** Injects a message into the conversation (protocol §13, `automatedTrigger`). */
  sendTrigger(text: string): Promise<void>;
  /** A store shared by every tool call of the session (per connection). */
  readonly state: Map<string, unknown>;
}

/**
 * A tool the model can call that runs in the SDK's process (protocol §7). `call` may return any
 * JSON value (objects are sent as they are, other values as `{"result": value}`) or throw
 * (the model sees the error message).
 */
export interface Tool<Args = unknown> {
  /** The name the model calls; letters, digits, `_ . : -`, starting with a letter or `_`, ≤ 64 chars. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object; omitted means no arguments. */
  readonly parameters?: JsonSchema;
  call(args: Args, context: ToolContext): unknown;
}

/** What {@link defineTool} takes. */
export interface ToolDefinition<Args> {
  name: string;
  description: string;
  parameters?: JsonSchema;
  call: (args: Args, context: ToolContext) => unknown;
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** Throws `InvalidArgument` unless `name` is a name the model API accepts. */
export function validateToolName(name: string): void {
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `invalid tool name ${typeof name === "string" ? JSON.stringify(name) : `(a ${typeof name})`}: use a string of letters, digits, "_", ".", ":" or "-", start with a letter or "_", at most 64 characters`,
    );
  }
}

/**
 * Defines a client tool. The argument type comes from `call`'s parameter.
 *
 * @example
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two integers",
 *   parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
 *   call: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
 * });
 */
export function defineTool<Args>(definition: ToolDefinition<Args>): Tool<Args> {
  validateTool(definition);
  const { name, description, parameters, call } = definition;
  return Object.freeze({ name, description, ...(parameters === undefined ? {} : { parameters }), call: (args: Args, context: ToolContext) => call(args, context) });
}

/**
 * Throws `InvalidArgument` unless `tool` has what the types promise — for JavaScript callers,
 * whom no compiler stops: a valid name, a string description, an object `parameters` schema if
 * any, and a `call` function.
 */
export function validateTool(tool: unknown): asserts tool is Tool {
  if (typeof tool !== "object" || tool === null) throw new SdkError(ErrorCode.InvalidArgument, `a tool must be an object { name, description, parameters?, call }, got ${tool === null ? "null" : typeof tool}`);
  const t = tool as Record<string, unknown>;
  validateToolName(t["name"] as string);
  const name = JSON.stringify(t["name"]);
  if (typeof t["description"] !== "string") throw new SdkError(ErrorCode.InvalidArgument, `tool ${name}: description must be a string (the model reads it to decide when to call the tool)`);
  const parameters = t["parameters"];
  if (parameters !== undefined && (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))) {
    throw new SdkError(ErrorCode.InvalidArgument, `tool ${name}: parameters must be a JSON Schema object such as { type: "object", properties: {...} }, or omitted`);
  }
  if (typeof t["call"] !== "function") throw new SdkError(ErrorCode.InvalidArgument, `tool ${name}: call must be a function (args, context) => result`);
}
