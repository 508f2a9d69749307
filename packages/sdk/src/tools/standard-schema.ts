import { ErrorCode, SdkError } from "../errors.js";
import { errorText } from "../error-text.js";

/**
 * The Standard Schema V1 interface (https://standardschema.dev), copied as its spec allows so
 * that no schema library is a dependency: zod, valibot, arktype and others implement it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/**
 * The Standard JSON Schema extension (https://standardschema.dev/json-schema), implemented by
 * zod ≥ 4.2 and arktype: `~standard.jsonSchema.input({ target })` gives the JSON Schema.
 */
export interface StandardJSONSchemaV1Converter {
  readonly input: (options: {
    readonly target: "draft-2020-12" | "draft-07" | "openapi-3.0" | ({} & string);
    readonly libraryOptions?: Record<string, unknown>;
  }) => Record<string, unknown>;
}

/** Whether `value` implements Standard Schema V1 (has a `~standard` with `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return (
    typeof props === "object" && props !== null && typeof (props as { validate?: unknown }).validate === "function"
  );
}

/**
 * The JSON Schema of what `schema` accepts, for the harness (the model sees it): `explicit` when
 * given, else the library's own conversion — the Standard JSON Schema extension (zod ≥ 4.2,
 * arktype), else a `toJSONSchema()`/`toJsonSchema()` method. The top-level `$schema` is dropped
 * (the wire carries the schema alone, protocol §5.1). Throws `InvalidArgument` naming the fix
 * when the library has no converter. `what` names the schema's owner in messages.
 */
export function jsonSchemaOf(schema: StandardSchemaV1, what: string, explicit?: object): Record<string, unknown> {
  if (explicit !== undefined) {
    if (typeof explicit !== "object" || explicit === null || Array.isArray(explicit))
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `${what}: jsonSchema must be a JSON Schema object such as { type: "object", properties: {...} }`,
      );
    return explicit as Record<string, unknown>;
  }
  const props = schema["~standard"] as StandardSchemaV1.Props & { jsonSchema?: Partial<StandardJSONSchemaV1Converter> };
  const methods = schema as { toJSONSchema?: unknown; toJsonSchema?: unknown };
  let converted: unknown;
  try {
    if (typeof props.jsonSchema?.input === "function") converted = props.jsonSchema.input({ target: "draft-2020-12" });
    else if (typeof methods.toJSONSchema === "function")
      converted = (methods.toJSONSchema as () => unknown).call(schema);
    else if (typeof methods.toJsonSchema === "function")
      converted = (methods.toJsonSchema as () => unknown).call(schema);
    else {
      const hint =
        props.vendor === "valibot"
          ? ` (for valibot: jsonSchema: toJsonSchema(schema) from "@valibot/to-json-schema")`
          : props.vendor === "zod"
            ? " (zod ≥ 4.2 converts by itself: upgrade zod, or pass jsonSchema: z.toJSONSchema(schema))"
            : "";
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `${what}: the ${props.vendor} schema cannot produce a JSON Schema by itself; pass the JSON Schema as jsonSchema${hint}`,
      );
    }
  } catch (cause) {
    if (cause instanceof SdkError) throw cause;
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `${what}: the ${props.vendor} schema could not be converted to JSON Schema (${errorText(cause)}); pass the JSON Schema as jsonSchema`,
      { cause },
    );
  }
  if (typeof converted !== "object" || converted === null || Array.isArray(converted))
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `${what}: the ${props.vendor} schema's JSON Schema conversion did not return an object; pass the JSON Schema as jsonSchema`,
    );
  const { $schema: _dropped, ...jsonSchema } = converted as Record<string, unknown>;
  return jsonSchema;
}

/**
 * Validates `value` with `schema` (its `validate` may be async): the validated, possibly
 * transformed value, or the issues as one readable line each (`path: message`).
 */
export async function validateWithSchema(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<{ value: unknown } | { issues: string[] }> {
  const result = await schema["~standard"].validate(value);
  if (!result.issues) return { value: result.value };
  return { issues: result.issues.map(describeIssue) };
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? []).map((segment) =>
    String(typeof segment === "object" && segment !== null ? segment.key : segment),
  );
  return path.length === 0 ? issue.message : `${path.join(".")}: ${issue.message}`;
}
