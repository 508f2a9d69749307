import { displayPath, resolveWorkspacePath, type WorkspaceRoots } from "./workspace-paths.js";
import { ToolError } from "./tool.js";

// Readers of model-supplied arguments. The model gets a clear message naming the argument when
// it sends the wrong shape, and can retry.

/** A string argument; `fallback` when absent, otherwise a ToolError. */
export function stringArg(args: Record<string, unknown>, key: string, fallback?: string): string {
  const value = args[key];
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw new ToolError(`missing required argument "${key}"`);
  }
  if (typeof value !== "string") throw new ToolError(`argument "${key}" must be a string, got ${typeof value}`);
  return value;
}

/** An optional positive integer argument. */
export function optionalIntArg(args: Record<string, unknown>, key: string): number | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 0) {
    throw new ToolError(`argument "${key}" must be a non-negative integer`);
  }
  return number;
}

/** An optional boolean argument (`false` when absent). */
export function boolArg(args: Record<string, unknown>, key: string): boolean {
  const value = args[key];
  if (value === undefined || value === null) return false;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new ToolError(`argument "${key}" must be a boolean`);
}

/** A string argument for step display only: never throws. */
export function displayArg(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

/** A path argument resolved inside the workspace: the real absolute path and how to show it. */
export interface ResolvedPath {
  absolute: string;
  /** Relative to its workspace root (`.` for the root itself). */
  shown: string;
}

/**
 * A path argument, resolved and checked against the workspace (`resolveWorkspacePath`: `..`,
 * absolute paths elsewhere and symlinks out are refused). `fallback` when absent; `allowMissing`
 * for a file about to be created; `writeTarget` keeps the last name unresolved, so that a write
 * meets (and refuses) a symlink there instead of following it. The file itself is opened with
 * workspace-fs.ts, which checks again what was opened.
 */
export async function pathArg(
  args: Record<string, unknown>,
  key: string,
  workspace: WorkspaceRoots,
  options: { fallback?: string; allowMissing?: boolean; writeTarget?: boolean } = {},
): Promise<ResolvedPath> {
  const absolute = await resolveWorkspacePath(workspace, stringArg(args, key, options.fallback), {
    allowMissing: options.allowMissing === true,
    keepLastComponent: options.writeTarget === true,
  });
  return { absolute, shown: displayPath(workspace, absolute) };
}
