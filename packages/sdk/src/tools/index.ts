/**
 * Client tools: the `Tool` interface, `defineTool`, and the `ToolRunner` that declares tools to
 * the harness and answers its `toolCall`s (protocol §7).
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
export { ToolRunner, toToolResponse, type ClientToolResult } from "./tool-runner.js";
export { toolResultValue, type JsonValue, type ToolMedia, type ToolResultValue } from "./tool-result-value.js";
export type { StandardSchemaV1 } from "./standard-schema.js";
export type { JsonSchemaType } from "./json-schema-type.js";
