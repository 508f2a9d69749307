import { ErrorCode, SdkError } from "../errors.js";
import type { IsLiteralJsonSchema, JsonSchemaType } from "./json-schema-type.js";
import { checkJsonSchema } from "./json-schema-check.js";
import { isStandardSchema, jsonSchemaOf, validateWithSchema, type StandardSchemaV1 } from "./standard-schema.js";

/** A JSON Schema object describing a tool's arguments (Gemini-API style, protocol §5.1). */
export type JsonSchema = { readonly [key: string]: unknown };

/** The schema sent for a tool that takes no arguments (protocol §5.1). */
export const NO_ARGUMENTS_SCHEMA: JsonSchema = Object.freeze({ type: "object", properties: {} });

/**
 * What a client tool receives besides its arguments. `signal` is a getter (the signal is made on
 * first read): destructuring reads it, a spread copy (`{ ...context }`) does not carry it.
 */
export interface ToolContext {
  /** The conversation the call belongs to. */
  readonly conversationId: string;
  /** The harness's id of this call. */
  readonly callId: string;
  /**
   * The trajectory that made the call: the main one (the conversation id) or a subagent's
   * (`ToolCall.trajectory_id`, upstream localharness.proto @257f843a; the main one when the harness names none).
   */
  readonly trajectoryId?: string;
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
  /**
   * `true`: the model's arguments reach validation and `call` exactly as sent. Default: a string
   * that unambiguously spells a declared `integer`, `number` or `boolean` is converted first
   * (`"7"` → `7`, `"true"` → `true`), as upstream's ToolRunner does (tools/coerce-arguments.ts).
   */
  readonly strictArguments?: boolean;
  call(args: Args, context: ToolContext): unknown;
}

/** What {@link defineTool} takes with a JSON Schema (or no schema): `Args` comes from `call`'s parameter. */
export interface ToolDefinition<Args, Parameters extends JsonSchema = JsonSchema> {
  name: string;
  description: string;
  /** See {@link Tool.strictArguments}. */
  strictArguments?: boolean;
  /** JSON Schema of the arguments object; omitted means no arguments. */
  parameters?: Parameters & NotStandardSchema & NotLiteralJsonSchema<Parameters>;
  call: (args: Args, context: ToolContext) => unknown;
}

/**
 * What {@link defineTool} takes with a schema that types `call`'s argument: a Standard Schema
 * (zod, valibot, arktype, …) — `call` receives its validated output, and the JSON Schema sent
 * to the harness is the library's own conversion or `jsonSchema` when the library has none
 * (valibot) — or a JSON Schema declared `as const` (its `type` a literal), read by {@link JsonSchemaType}.
 */
export interface SchemaToolDefinition<Schema extends StandardSchemaV1 | JsonSchema> {
  name: string;
  description: string;
  /** See {@link Tool.strictArguments}. */
  strictArguments?: boolean;
  /** The arguments' schema. A Standard Schema checks every call first: an invalid call never reaches `call`. */
  parameters: Schema & (Schema extends StandardSchemaV1 ? unknown : NotStandardSchema & LiteralJsonSchema<Schema>);
  /** With a Standard Schema whose library cannot convert by itself: the JSON Schema the model sees (valibot: `toJsonSchema(schema)` from `@valibot/to-json-schema`). */
  jsonSchema?: Schema extends StandardSchemaV1 ? object : never;
  call: (args: SchemaOutput<Schema>, context: ToolContext) => unknown;
}

/** What `call` receives with `parameters: Schema`: a Standard Schema's output, or what an `as const` JSON Schema describes. */
export type SchemaOutput<Schema> = Schema extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<Schema>
  : JsonSchemaType<Schema>;
/** What the model must send for `parameters: Schema`: a Standard Schema's input, or what an `as const` JSON Schema describes. */
export type SchemaInput<Schema> = Schema extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<Schema>
  : JsonSchemaType<Schema>;

/** Keeps a Standard Schema out of the JSON Schema overloads of {@link defineTool}. */
type NotStandardSchema = { readonly "~standard"?: never };
/** Present only when `Parameters` is declared `as const`: such a schema types `call` itself. */
type LiteralJsonSchema<Parameters> =
  IsLiteralJsonSchema<Parameters> extends true ? unknown : { readonly "~declaredAsConst": true };
type NotLiteralJsonSchema<Parameters> =
  IsLiteralJsonSchema<Parameters> extends true ? { readonly "~callArgumentsMustMatchTheSchema": true } : unknown;

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
 * Defines a client tool. `parameters` is one of:
 *
 * - a Standard Schema (zod, valibot, arktype, …): `call`'s argument type is the schema's output,
 *   the arguments are validated before `call` runs (an invalid call answers the model with an
 *   error naming each issue; `call` never runs), and the JSON Schema sent to the harness comes
 *   from the library (zod ≥ 4.2, arktype) or from `jsonSchema` (valibot: `@valibot/to-json-schema`);
 * - a JSON Schema declared `as const`: `call`'s argument type is read from it;
 * - any other JSON Schema, or none: the argument type comes from `call`'s parameter.
 *
 * A JSON Schema's `type`, `properties`, `required`, `items`, `enum` and
 * `additionalProperties: false` are checked before `call` runs too, with the same error.
 *
 * @example
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "The weather in a city",
 *   parameters: z.object({ city: z.string(), days: z.number().int().min(1).default(1) }),
 *   call: ({ city, days }) => ({ city, days, sky: "clear" }),
 * });
 */
export function defineTool<Args, Parameters extends JsonSchema = JsonSchema>(
  definition: ToolDefinition<Args, Parameters>,
): Tool<Args>;
export function defineTool<Schema extends StandardSchemaV1 | JsonSchema>(
  definition: SchemaToolDefinition<Schema>,
): Tool<SchemaInput<Schema>>;
export function defineTool(definition: {
  name: string;
  description: string;
  parameters?: unknown;
  jsonSchema?: object;
  strictArguments?: boolean;
  call: (args: unknown, context: ToolContext) => unknown;
}): Tool {
  if (typeof definition !== "object" || definition === null) validateTool(definition); // throws the InvalidArgument for JavaScript callers
  const { name, description, parameters, jsonSchema, call } = definition;
  const strict = definition.strictArguments === true ? { strictArguments: true } : {};
  if (isStandardSchema(parameters)) {
    validateTool({ name, description, call });
    const declared = jsonSchemaOf(parameters, `tool ${JSON.stringify(name)}`, jsonSchema);
    return Object.freeze({
      name,
      description,
      parameters: declared,
      ...strict,
      call: async (args: unknown, context: ToolContext) => call(await validArguments(parameters, name, args), context),
    });
  }
  validateTool(definition);
  if (jsonSchema !== undefined)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `tool ${JSON.stringify(name)}: jsonSchema goes with a Standard Schema (zod, valibot, …) in parameters; put a JSON Schema in parameters itself`,
    );
  if (parameters === undefined)
    return Object.freeze({
      name,
      description,
      ...strict,
      call: (args: unknown, context: ToolContext) => call(args, context),
    });
  const schema = parameters as JsonSchema;
  return Object.freeze({
    name,
    description,
    parameters: schema,
    ...strict,
    call: (args: unknown, context: ToolContext) => {
      const issues = checkJsonSchema(args, schema);
      if (issues.length > 0) throw invalidArguments(name, issues);
      return call(args, context);
    },
  });
}

/**
 * `args` validated by `schema` (the schema's output), else an `InvalidArgument` naming the tool
 * and each issue — the tool runner sends its message to the model as the call's error.
 */
async function validArguments(schema: StandardSchemaV1, name: string, args: unknown): Promise<unknown> {
  const result = await validateWithSchema(schema, args);
  if ("value" in result) return result.value;
  throw invalidArguments(name, result.issues);
}

/** The error of a call whose arguments its schema refuses; the tool runner sends the message to the model. */
function invalidArguments(name: string, issues: string[]): SdkError {
  return new SdkError(
    ErrorCode.InvalidArgument,
    `Invalid arguments for tool ${name}: ${issues.join("; ")}. The tool did not run; call it again with arguments that match its schema.`,
    {
      details: { issues },
    },
  );
}

/**
 * Throws `InvalidArgument` unless `tool` has what the types promise — for JavaScript callers,
 * whom no compiler stops: a valid name, a string description, an object `parameters` schema if
 * any, and a `call` function.
 */
export function validateTool(tool: unknown): asserts tool is Tool {
  if (typeof tool !== "object" || tool === null)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a tool must be an object { name, description, parameters?, call }, got ${tool === null ? "null" : typeof tool}`,
    );
  const t = tool as Record<string, unknown>;
  validateToolName(t["name"] as string);
  const name = JSON.stringify(t["name"]);
  if (typeof t["description"] !== "string")
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `tool ${name}: description must be a string (the model reads it to decide when to call the tool)`,
    );
  const parameters = t["parameters"];
  if (isStandardSchema(parameters))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `tool ${name}: parameters is a Standard Schema (${parameters["~standard"].vendor}); make the tool with defineTool({ ... }), which validates the arguments and derives the JSON Schema the model sees`,
    );
  if (
    parameters !== undefined &&
    (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
  ) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `tool ${name}: parameters must be a JSON Schema object such as { type: "object", properties: {...} }, or omitted`,
    );
  }
  if (typeof t["call"] !== "function")
    throw new SdkError(ErrorCode.InvalidArgument, `tool ${name}: call must be a function (args, context) => result`);
}
