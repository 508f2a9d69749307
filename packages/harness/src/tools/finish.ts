import type { ToolDeclaration } from "../model/provider.js";
import { checkJsonSchema } from "@antigravity-ts/sdk/internal";
import { ToolError } from "./tool.js";

/** The `finish` tool of a session with `finishToolSchemaJson` (§5.1, §11.1). */
export interface FinishTool {
  readonly declaration: ToolDeclaration;
  /** Checks the model's arguments and returns `ActionFinish.outputString` (JSON text). */
  outputString(args: Record<string, unknown>): string;
}

/**
 * Builds `finish` from the session's structured-output schema; undefined when none is set. An
 * object schema is the argument schema itself; any other schema (a string, an array…) is wrapped
 * as `{result: <schema>}` because tool arguments must be an object, and `result` is unwrapped.
 */
export function createFinishTool(schemaJson: string | undefined): FinishTool | undefined {
  if (schemaJson === undefined || schemaJson.trim() === "") return undefined;
  let schema: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(schemaJson);
    schema =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
  } catch {
    schema = {};
  }
  const isObject =
    schema["type"] === "object" || (schema["type"] === undefined && typeof schema["properties"] === "object");
  const parameters = isObject ? schema : { type: "object", properties: { result: schema }, required: ["result"] };
  return {
    declaration: {
      name: "finish",
      description:
        "Finish the task and return the final structured result. Call this exactly once, when done, with arguments that match the schema.",
      parameters,
    },
    outputString(args) {
      const problems = checkJsonSchema(args, parameters);
      if (problems.length > 0)
        throw new ToolError(`finish arguments do not match the output schema: ${problems.slice(0, 5).join("; ")}`);
      return JSON.stringify(isObject ? args : args["result"]);
    },
  };
}
