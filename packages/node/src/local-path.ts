import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";

/**
 * A local path resolved as upstream's `Path(path).expanduser().resolve()` resolves it
 * (`local_connection_config.normalize_workspace_path`): `~` and `~/…` expanded to the home
 * directory, a relative path resolved against the working directory, and symbolic links of the
 * part that exists followed (the rest is kept as written, so a directory that does not exist yet
 * is fine). A symlink loop throws `InvalidArgument`.
 *
 * @example
 * resolveLocalPath("~/project"); // "/home/me/project"
 */
export function resolveLocalPath(input: string): string {
  const expanded =
    input === "~"
      ? homedir()
      : input.startsWith("~/") || input.startsWith(`~${path.sep}`)
        ? path.join(homedir(), input.slice(2))
        : input;
  return realExisting(path.resolve(expanded));
}

/** `absolute` with the symlinks of its longest existing prefix resolved. */
function realExisting(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP")
        throw new SdkError(
          ErrorCode.InvalidArgument,
          `${absolute} cannot be resolved: it runs into a symbolic link loop`,
        );
      const parent = path.dirname(current);
      if (parent === current) return absolute; // nothing of it exists, not even the root
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Upstream's default app data directory, resolved: `~/.gemini/antigravity`
 * (`local_connection_config.DEFAULT_APP_DATA_DIR`), sent when the agent sets none.
 */
export function defaultAppDataDir(): string {
  return resolveLocalPath(path.join(homedir(), ".gemini", "antigravity"));
}
