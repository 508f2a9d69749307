/**
 * Client tools: the `Tool` interface, `defineTool`, and the `ToolRunner` that declares tools to
 * the harness and answers its `toolCall`s (protocol §7).
 * @module
 */
export { defineTool, NO_ARGUMENTS_SCHEMA, validateTool, validateToolName, type JsonSchema, type Tool, type ToolContext, type ToolDefinition } from "./tool.js";
export { ToolRunner, toToolResponse, type ClientToolResult } from "./tool-runner.js";
export { toolResultValue, type JsonValue, type ToolMedia, type ToolResultValue } from "./tool-result-value.js";
