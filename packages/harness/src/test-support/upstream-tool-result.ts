/**
 * What upstream's Python client makes of a built-in's `PostToolArgs.result` (§10): a port of
 * `_extract_tool_result` (google/antigravity/connections/local/event_processor.py) and the
 * pydantic models of connections/local/types.py, validated the way pydantic v2 does in lax JSON
 * mode (`model_validate_json`): aliases, defaults, ignored extra keys, and the coercions that mode
 * allows. Tests use it to check a result as upstream's `postToolCall` hook would see it.
 */

/** A pydantic field: where it is read from, how it is validated, its default. */
interface Field {
  aliases: readonly string[];
  parse: (value: unknown, at: string) => unknown;
  fallback: unknown;
}

/** Pydantic's validation error: upstream's extractor catches it and falls back. */
export class UpstreamValidationError extends Error {
  override readonly name = "UpstreamValidationError";
}

const fail = (at: string, what: string, value: unknown): never => {
  throw new UpstreamValidationError(`${at}: ${what}, got ${JSON.stringify(value)}`);
};

/** `str`: lax JSON mode accepts JSON strings only. */
const str = (value: unknown, at: string): string =>
  typeof value === "string" ? value : fail(at, "Input should be a valid string", value);

/** `int`: integers, floats without a fraction, and strings holding an integer. */
const int = (value: unknown, at: string): number => {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) return Number(value);
  return fail(at, "Input should be a valid integer", value);
};

const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);
/** `bool`: booleans, 0/1, and pydantic's yes/no words. */
const bool = (value: unknown, at: string): boolean => {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string" && TRUE.has(value.toLowerCase())) return true;
  if (typeof value === "string" && FALSE.has(value.toLowerCase())) return false;
  return fail(at, "Input should be a valid boolean", value);
};

const model =
  (fields: Record<string, Field>) =>
  (value: unknown, at: string): Record<string, unknown> => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return fail(at, "Input should be an object", value);
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(fields)) {
      const alias = field.aliases.find((a) => Object.hasOwn(input, a));
      out[name] = alias === undefined ? field.fallback : field.parse(input[alias], `${at}.${alias}`);
    }
    return out;
  };

const list =
  (item: (value: unknown, at: string) => unknown) =>
  (value: unknown, at: string): unknown[] =>
    Array.isArray(value)
      ? value.map((v, i) => item(v, `${at}[${i}]`))
      : fail(at, "Input should be a valid list", value);

const field = (parse: Field["parse"], fallback: unknown, ...aliases: string[]): Field => ({ parse, fallback, aliases });

/** `_TOOL_RESULT_MODELS`: the built-ins upstream parses, by harness tool name. */
const MODELS: Record<string, (value: unknown, at: string) => Record<string, unknown>> = {
  run_command: model({ output: field(str, "", "output", "combined_output") }),
  list_directory: model({
    entries: field(
      list(
        model({
          name: field(str, "", "name"),
          is_directory: field(bool, false, "is_directory"),
          file_size: field(int, 0, "file_size"),
        }),
      ),
      [],
      "entries",
      "results",
    ),
  }),
  find_file: model({ output: field(str, "", "output") }),
  search_directory: model({ num_results: field(int, 0, "num_results") }),
  edit_file: model({ summary: field(str, "", "summary") }),
  generate_image: model({
    image_name: field(str, "", "image_name"),
    aspect_ratio: field(str, "", "aspect_ratio"),
    output_path: field(str, "", "output_path"),
  }),
  search_web: model({ summary: field(str, "", "summary") }),
  read_url_content: model({
    title: field(str, "", "title"),
    summary: field(str, "", "summary"),
    content_path: field(str, "", "content_path"),
  }),
};

/** Tool names upstream parses into a structured result. */
export const UPSTREAM_STRUCTURED_TOOLS: readonly string[] = Object.keys(MODELS);

/**
 * Upstream's `_extract_tool_result(tool_name, result_str)`: the structured result, or
 * `undefined` (Python `None`: the hook then gets the raw string). A result that does not
 * validate gives `undefined`, except for edit_file and find_file, which take the text whole.
 */
export function extractUpstreamToolResult(toolName: string, result: string): Record<string, unknown> | undefined {
  const parse = MODELS[toolName];
  if (result === "" || parse === undefined) return undefined;
  try {
    return parse(JSON.parse(result), toolName);
  } catch {
    if (toolName === "edit_file") return { summary: result };
    if (toolName === "find_file") return { output: result };
    return undefined;
  }
}

/**
 * Like {@link extractUpstreamToolResult}, but throws where upstream would silently fall back
 * (`None`, or the raw text for edit_file / find_file), so a test sees why a result did not parse.
 */
export function extractUpstreamToolResultStrict(toolName: string, result: string): Record<string, unknown> {
  const parse = MODELS[toolName];
  if (parse === undefined) throw new UpstreamValidationError(`upstream has no structured result for ${toolName}`);
  return parse(JSON.parse(result), toolName);
}
