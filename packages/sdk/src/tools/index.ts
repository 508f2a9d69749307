/**
 * Client tools: the `Tool` interface and `defineTool` (protocol §7). The `ToolRunner` that declares
 * tools to the harness and answers its `toolCall`s is in `@antigravity-ts/sdk/connection`.
 * @module
 */
export {
  defineTool,
  NO_ARGUMENTS_SCHEMA,
  validateTool,
  validateToolName,
  type JsonSchema,
  type SchemaToolDefinition,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type SchemaInput,
  type SchemaOutput,
} from "./tool.js";
export { toolResultValue, type JsonValue, type ToolMedia, type ToolResultValue } from "./tool-result-value.js";
export type { StandardSchemaV1 } from "./standard-schema.js";
export type { IsLiteralJsonSchema, JsonSchemaType } from "./json-schema-type.js";
