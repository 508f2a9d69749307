import type { MessageInitShape } from "@bufbuild/protobuf";
import { ErrorCode, SdkError } from "../errors.js";
import type { ToolCall, ToolResult } from "../step.js";
import type { ToolResponseSchema, ToolSchema } from "../wire/index.js";
import { NO_ARGUMENTS_SCHEMA, validateTool, type Tool, type ToolContext } from "./tool.js";
import { declaredSchema } from "./declared-schema.js";
import { toolResultValue, type JsonValue, type ToolMedia } from "./tool-result-value.js";
import { errorText } from "../error-text.js";

/** A client tool's outcome: the result already converted to JSON, with the media it returned. */
export interface ClientToolResult extends ToolResult {
  /** Media the tool returned, sent as `supplementalMedia` (protocol §7). */
  media?: ToolMedia[];
}

/**
 * The client tools of a session: declares them to the harness (`HarnessConfig.tools`) and runs
 * the calls the harness forwards (protocol §7). Policy and PRE_TOOL gating happen in the harness
 * before a call reaches the runner, so the runner does not gate again.
 *
 * @example
 * const runner = new ToolRunner([add]);
 * const result = await runner.run({ id: "c1", name: "add", args: { a: 2, b: 3 } }, context);
 */
export class ToolRunner {
  readonly #tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool. Throws `InvalidArgument` for a bad or duplicate name or a malformed tool. */
  register(tool: Tool): this {
    validateTool(tool);
    if (this.#tools.has(tool.name))
      throw new SdkError(ErrorCode.InvalidArgument, `a tool named ${JSON.stringify(tool.name)} is already registered`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** Names of the registered tools, in registration order. */
  get names(): string[] {
    return [...this.#tools.keys()];
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** `HarnessConfig.tools` entries (protocol §5.1): the schema as a JSON string. */
  declarations(): MessageInitShape<typeof ToolSchema>[] {
    return [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      parametersJsonSchema: JSON.stringify(
        tool.parameters === undefined ? NO_ARGUMENTS_SCHEMA : declaredSchema(tool.parameters),
      ),
    }));
  }

  /**
   * Runs one call: the arguments brought to the declared scalar types first unless the tool is
   * `strictArguments` (coerce-arguments.ts). Never throws: an unknown tool, a thrown error or a result that cannot be
   * converted becomes `error`; anything else becomes `result`, converted to JSON as upstream does
   * ({@link toolResultValue}), with the media it held in `media`.
   */
  async run(call: ToolCall, context: ToolContext): Promise<ClientToolResult> {
    const tool = this.#tools.get(call.name);
    if (tool === undefined) return noSuchTool(call);
    let value: unknown;
    try {
      // Upstream ToolRunner._coerce_args: unambiguous strings to the declared scalar types, then
      // validation. Loaded on the first call that needs it, so the start-up bundle does not hold it.
      const args =
        tool.strictArguments === true || tool.parameters === undefined
          ? call.args
          : (await import("./coerce-arguments.js")).coerceArguments(call.args, tool.parameters);
      value = await tool.call(args, context);
    } catch (error) {
      return failed(call, error);
    }
    return converted(call, value);
  }
}

/** The answer to a call of a tool nobody registered (upstream tool_runner.py `process_tool_calls`' text). */
export function noSuchTool(call: ToolCall): ClientToolResult {
  return { id: call.id, name: call.name, error: `Unknown tool: '${call.name}'` };
}

function failed(call: ToolCall, error: unknown): ClientToolResult {
  return { id: call.id, name: call.name, error: errorText(error) };
}

/** A tool's value as {@link ToolRunner.run}'s result: converted to JSON, media apart. */
function converted(call: ToolCall, value: unknown): ClientToolResult {
  try {
    const { json, media } = toolResultValue(value);
    return media.length === 0
      ? { id: call.id, name: call.name, result: json }
      : { id: call.id, name: call.name, result: json, media };
  } catch (error) {
    return {
      id: call.id,
      name: call.name,
      error: `Tool ${call.name} returned a value that is not JSON: ${errorText(error)}`,
    };
  }
}

/**
 * The `toolResponse` for a result (protocol §7, upstream `_send_tool_results`): `errorMessage`
 * for an error, else `responseJson` holding a JSON object — objects as they are, any other value
 * as `{"result": value}` — and the result's media as `supplementalMedia`. A raw value is
 * converted as {@link ToolRunner.run} converts it.
 */
export function toToolResponse(result: ClientToolResult): MessageInitShape<typeof ToolResponseSchema> {
  if (result.error !== undefined) return { id: result.id, errorMessage: result.error };
  let value: ReturnType<typeof toolResultValue>;
  try {
    value = toolResultValue(result.result);
  } catch (error) {
    return {
      id: result.id,
      errorMessage: `Tool ${result.name} returned a value that is not JSON: ${errorText(error)}`,
    };
  }
  return responseOf(
    result,
    value.json,
    value.media.length === 0 ? (result.media ?? []) : [...(result.media ?? []), ...value.media],
  );
}

/**
 * @internal {@link toToolResponse} for a result of {@link ToolRunner.run}: its value
 * is JSON already and its media are in `media`, so it is not walked again.
 */
export function runnerToolResponse(result: ClientToolResult): MessageInitShape<typeof ToolResponseSchema> {
  if (result.error !== undefined) return { id: result.id, errorMessage: result.error };
  return responseOf(result, result.result as JsonValue, result.media ?? []);
}

function responseOf(
  result: ClientToolResult,
  json: JsonValue,
  media: readonly ToolMedia[],
): MessageInitShape<typeof ToolResponseSchema> {
  const object = typeof json === "object" && json !== null && !Array.isArray(json) ? json : { result: json };
  const response: MessageInitShape<typeof ToolResponseSchema> = { id: result.id, responseJson: JSON.stringify(object) };
  if (media.length > 0) {
    response.supplementalMedia = media.map((m) =>
      m.description === undefined
        ? { mimeType: m.mimeType, data: m.data }
        : { mimeType: m.mimeType, data: m.data, description: m.description },
    );
  }
  return response;
}
