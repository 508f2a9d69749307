import { realpath } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A path a tool may not touch, or one that does not resolve; the message is shown to the model and the user. */
export class WorkspacePathError extends Error {
  override readonly name = "WorkspacePathError";
}

/**
 * The directories a session's tools may use (`HarnessConfig.workspaces`, §5.1). Relative paths
 * resolve against the first one. Containment can be switched off only by
 * `PolicyConfig.workspaceContainment = WORKSPACE_CONTAINMENT_DISABLED` (§12).
 */
export interface WorkspaceRoots {
  /** Real (symlink-free) absolute paths; the first is the default directory. */
  readonly roots: readonly string[];
  readonly containment: boolean;
}

/** Resolves the configured workspace directories to real paths (missing ones stay as given, absolute). */
export async function createWorkspaceRoots(
  directories: readonly string[],
  containment = true,
): Promise<WorkspaceRoots> {
  const roots: string[] = [];
  for (const directory of directories) {
    const absolute = path.resolve(toLocalPath(directory));
    roots.push(await realpath(absolute).catch(() => absolute));
  }
  return { roots, containment };
}

/** Options of {@link resolveWorkspacePath}. */
export interface ResolvePathOptions {
  /** The target may not exist yet (create_file); its nearest existing ancestor is checked instead. */
  allowMissing?: boolean;
  /**
   * Resolve only the parent directory and keep the last name as given (write targets): a symlink
   * there stays a symlink, which the write then refuses instead of following (workspace-fs.ts).
   */
  keepLastComponent?: boolean;
}

/**
 * Turns a model-supplied path into a real absolute path inside the workspace. Rejects escapes by
 * `..`, by absolute paths elsewhere and by symlinks pointing outside (checked on the real path).
 * Accepts `file://` URIs (§6.4 path normalisation). This is the check that gives the model a clear
 * message; what is then opened is checked again by workspace-fs.ts, because the file system can
 * change in between.
 */
export async function resolveWorkspacePath(
  workspace: WorkspaceRoots,
  input: string,
  options: ResolvePathOptions = {},
): Promise<string> {
  const [base] = workspace.roots;
  if (base === undefined) throw new WorkspacePathError("no workspace is configured for this session");
  if (input.includes("\0")) throw new WorkspacePathError("path contains a NUL byte");
  const raw = input.trim() === "" ? "." : toLocalPath(input.trim());
  const absolute = path.resolve(base, raw);
  if (workspace.containment && !insideAny(workspace.roots, absolute)) {
    throw outside(input, workspace);
  }
  const real = await realTarget(absolute, options);
  if (real === undefined) throw new WorkspacePathError(`path ${JSON.stringify(input)} does not exist`);
  if (workspace.containment && !insideAny(workspace.roots, real)) {
    throw new WorkspacePathError(
      `path ${JSON.stringify(input)} resolves through a symlink to ${real}, outside the workspace (${workspace.roots.join(", ")})`,
    );
  }
  return real;
}

/** `path` relative to the workspace root that contains it, for display; absolute otherwise. */
export function displayPath(workspace: WorkspaceRoots, absolute: string): string {
  for (const root of workspace.roots) {
    if (isInside(root, absolute)) return path.relative(root, absolute) || ".";
  }
  return absolute;
}

function toLocalPath(value: string): string {
  if (value.startsWith("file://")) {
    try {
      return fileURLToPath(value);
    } catch {
      throw new WorkspacePathError(`not a usable file URI: ${JSON.stringify(value)}`);
    }
  }
  return value;
}

async function realTarget(absolute: string, options: ResolvePathOptions): Promise<string | undefined> {
  const allowMissing = options.allowMissing === true;
  if (options.keepLastComponent !== true || path.dirname(absolute) === absolute)
    return realpathOrAncestor(absolute, allowMissing);
  const parent = await realpathOrAncestor(path.dirname(absolute), allowMissing);
  return parent === undefined ? undefined : path.join(parent, path.basename(absolute));
}

async function realpathOrAncestor(absolute: string, allowMissing: boolean): Promise<string | undefined> {
  try {
    return await realpath(absolute);
  } catch (error) {
    if (!allowMissing || !isMissing(error)) return undefined;
  }
  // Walk up to the nearest existing ancestor; the rest of the path cannot hold symlinks yet.
  let current = absolute;
  const rest: string[] = [];
  for (;;) {
    const parent = path.dirname(current);
    rest.unshift(path.basename(current));
    if (parent === current) return undefined;
    current = parent;
    try {
      return path.join(await realpath(current), ...rest);
    } catch (error) {
      if (!isMissing(error)) return undefined;
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Whether `candidate` (absolute, normalised) is one of `roots` or below one. */
export function insideAny(roots: readonly string[], candidate: string): boolean {
  return roots.some((root) => isInside(root, candidate));
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === "") return true;
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function outside(input: string, workspace: WorkspaceRoots): WorkspacePathError {
  return new WorkspacePathError(
    `path ${JSON.stringify(input)} is outside the workspace (${workspace.roots.join(", ")}); use a path inside it`,
  );
}
