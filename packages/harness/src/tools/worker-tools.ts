import type { WorkspaceRoots } from "./workspace-paths.js";
import { editFileTool } from "./edit-file.js";
import { findFileTool } from "./find-file.js";
import { listDirectoryTool } from "./list-directory.js";
import { searchDirectoryTool } from "./search-directory.js";
import type { BuiltinTool, ToolOutcome } from "./tool.js";
import { viewFileTool } from "./view-file.js";

// What the main thread (tool-pool.ts) and a tool worker (tool-worker.ts) agree on: which built-ins
// run in a worker, and the messages between them.

/** A built-in that runs in a tool worker, and what to tell the model when it runs out of time. */
export interface WorkerTool {
  readonly tool: BuiltinTool;
  /** How to make a call that timed out smaller. */
  readonly narrow: string;
}

/** The built-ins whose calls run off the event loop: everything that walks, reads or rewrites files. */
export const WORKER_TOOLS: ReadonlyMap<string, WorkerTool> = new Map(
  [
    { tool: searchDirectoryTool, narrow: "search a smaller directory_path, or use a more specific query" },
    { tool: findFileTool, narrow: "search a smaller directory_path, or use a simpler pattern" },
    { tool: editFileTool, narrow: "edit a smaller file, or replace fewer occurrences at a time" },
    { tool: viewFileTool, narrow: "read a smaller file or a line range" },
    { tool: listDirectoryTool, narrow: "list a smaller directory" },
  ].map((entry) => [entry.tool.name, entry]),
);

/** `workerData` key that marks a thread as a tool worker. */
export const TOOL_WORKER_MARK = "antigravityToolWorker";

/** The first message of a worker: loaded and serving (time limits count from here, not from its start-up). */
export const TOOL_WORKER_READY = "ready";

/** One call sent to a worker (structured-cloned). */
export interface ToolCallRequest {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly workspace: WorkspaceRoots;
}

/** The worker's answer; an error crosses as its name and message. */
export type ToolCallReply =
  | { ok: true; outcome: ToolOutcome }
  | { ok: false; error: { name: string; message: string } };
