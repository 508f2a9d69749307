import { ErrorCode, SdkError } from "../errors.js";
import { normalizeWirePath } from "../mapping/file-uri.js";

/** Resolves a local path the runtime's way (Node: `~`, relative to the working directory, symlinks). */
export type LocalPathResolver = (path: string) => string;

/**
 * A workspace directory as the harness gets it, following upstream's
 * `local_connection_config.normalize_workspace_path`: `file://` URIs become local paths and
 * `cns://cell/…` becomes `/cns/cell/…`; a `/cns/` path or another scheme's URI is kept; any other
 * path goes through `resolveLocal` when the runtime gives one (`@antigravity-ts/node` expands `~`,
 * resolves relative paths and symlinks, as `Path.expanduser().resolve()` does). A workspace that
 * is not a non-empty string throws `InvalidArgument`.
 *
 * @example
 * normalizeWorkspacePath("file:///home/me/project"); // "/home/me/project"
 */
export function normalizeWorkspacePath(path: string, resolveLocal?: LocalPathResolver): string {
  if (typeof path !== "string" || path.trim() === "") {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a workspace must be a non-empty directory path or file:// URI, got ${typeof path === "string" ? JSON.stringify(path) : typeof path}`,
    );
  }
  const normalized = normalizeWirePath(path);
  if (normalized.startsWith("/cns/")) return normalized;
  // A scheme other than a drive letter (`C:\x`) names something that is not a local path.
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(normalized)) return normalized;
  return resolveLocal === undefined ? normalized : resolveLocal(normalized);
}

/** True for an absolute POSIX path, a Windows drive path (`C:\x`, `C:/x`) or a UNC path (`\\server\share`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Throws `InvalidArgument` unless `appDataDir` is an absolute path (upstream
 * `BaseLocalAgentConfig._validate_app_data_dir`: "app_data_dir must be an absolute path").
 */
export function assertAppDataDir(appDataDir: unknown): asserts appDataDir is string {
  if (typeof appDataDir !== "string" || !isAbsolutePath(appDataDir)) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `appDataDir must be an absolute path, got ${typeof appDataDir === "string" ? JSON.stringify(appDataDir) : typeof appDataDir}`,
    );
  }
}
