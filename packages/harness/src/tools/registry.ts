import type { HarnessSideTools } from "@antigravity-ts/sdk/wire";
import { askQuestionTool } from "./ask-question.js";
import { createFileTool } from "./create-file.js";
import { editFileTool } from "./edit-file.js";
import { findFileTool } from "./find-file.js";
import { listDirectoryTool } from "./list-directory.js";
import { manageTaskTool } from "./manage-task.js";
import { scheduleTool } from "./schedule.js";
import { runCommandTool } from "./run-command.js";
import { searchDirectoryTool } from "./search-directory.js";
import type { BuiltinTool } from "./tool.js";
import { viewFileTool } from "./view-file.js";

/** Every built-in tool, in the order they are offered to the model. */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  listDirectoryTool,
  viewFileTool,
  findFileTool,
  searchDirectoryTool,
  createFileTool,
  editFileTool,
  runCommandTool,
  askQuestionTool,
  scheduleTool,
  manageTaskTool,
];

/** Names of the built-in tools plus `finish` and the tools made per session (`skill_lookup`). */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...BUILTIN_TOOLS.map((tool) => tool.name),
  "finish",
  "skill_lookup",
]);

/** The built-ins the session's switches enable (§11.1; absent switch → disabled, §3 schema notes). */
export function enabledBuiltins(switches: HarnessSideTools | undefined): BuiltinTool[] {
  return BUILTIN_TOOLS.filter((tool) => tool.enabled(switches));
}
