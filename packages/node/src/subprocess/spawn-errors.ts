import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import type { HarnessSource } from "./discover-harness.js";
import { errorText, definedProperties } from "@antigravity-ts/sdk/internal";

/** How to point the SDK at a harness binary when nothing named one. */
export const HARNESS_PATH_HINT = "set ANTIGRAVITY_HARNESS_PATH or the harnessPath option";

/**
 * What to fix when the binary at a path is unusable: the setting that named the path (a set but
 * wrong `ANTIGRAVITY_HARNESS_PATH` must not be told to "set ANTIGRAVITY_HARNESS_PATH").
 */
function pathHint(source: HarnessSource | undefined): string {
  switch (source) {
    case "option":
      return "the harnessPath option names this path; point it at the harness binary";
    case "agent-env":
      return "ANTIGRAVITY_HARNESS_PATH in the agent's env names this path; point it at the harness binary or remove it";
    case "process-env":
      return "the environment variable ANTIGRAVITY_HARNESS_PATH names this path; point it at the harness binary or unset it";
    default:
      return HARNESS_PATH_HINT;
  }
}

/**
 * Maps a Node system error raised while starting or talking to the harness binary to an
 * `SdkError` a user can act on. This is the only place Node errnos are interpreted (STYLE.md).
 */
export function mapSpawnError(cause: unknown, binaryPath: string, source?: HarnessSource): SdkError {
  if (cause instanceof SdkError) return cause;
  const hint = pathHint(source);
  const code = errnoCode(cause);
  const reason = errorText(cause);
  const details = { binaryPath, errno: code, ...definedProperties({ source }) };
  switch (code) {
    // A missing or foreign binary is configuration: the same start fails again until it is fixed (not retryable).
    case "ENOENT":
      return new SdkError(ErrorCode.FailedPrecondition, `harness binary not found at ${binaryPath}: ${hint}`, {
        cause,
        details,
      });
    case "EACCES":
    case "EPERM":
      return new SdkError(
        ErrorCode.PermissionDenied,
        `harness binary at ${binaryPath} cannot be executed (${code}): make it executable (chmod +x), or: ${hint}`,
        { cause, details },
      );
    case "ENOEXEC":
    case "EBADARCH":
      return new SdkError(
        ErrorCode.FailedPrecondition,
        `harness binary at ${binaryPath} is not an executable for this platform (${code}): install the build for ${process.platform}/${process.arch}`,
        {
          cause,
          details,
        },
      );
    case "ENOTDIR":
    case "EISDIR":
      return new SdkError(ErrorCode.InvalidArgument, `harness path ${binaryPath} is not a file (${code}): ${hint}`, {
        cause,
        details,
      });
    case "EMFILE":
    case "ENFILE":
    case "EAGAIN":
    case "ENOMEM":
      return new SdkError(
        ErrorCode.Unavailable,
        `could not start the harness at ${binaryPath}: the system is out of resources (${code}); close other processes or raise the limits`,
        {
          cause,
          details,
        },
      );
    default:
      return new SdkError(ErrorCode.Unavailable, `could not start the harness at ${binaryPath}: ${reason}`, {
        cause,
        details,
      });
  }
}

/** The `code` of a Node system error (`"ENOENT"` ...), or `undefined`. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
