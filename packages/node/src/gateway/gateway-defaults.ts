import { BuiltinTool } from "@antigravity-ts/sdk";

/** Built-ins a page gets when the operator names none: the read-only ones and questions to the user. */
export const DEFAULT_GATEWAY_TOOLS: readonly BuiltinTool[] = [
  BuiltinTool.ListDirectory,
  BuiltinTool.SearchDirectory,
  BuiltinTool.FindFile,
  BuiltinTool.ViewFile,
  BuiltinTool.AskQuestion,
];
