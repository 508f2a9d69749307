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

/** A program that failed to start: what to call it in messages, its path, and what to do about it. */
export interface ProgramToStart {
  /** How messages name it, e.g. `"harness binary"`, `"NDJSON agent command"`. */
  name: string;
  path: string;
  /** What to set or install when it is missing or wrong. */
  hint: string;
  /** Extra `details` for the error. */
  details?: Record<string, unknown> | undefined;
}

/**
 * Maps a Node system error raised while starting or talking to the harness binary to an
 * `SdkError` a user can act on. This is the only place Node errnos are interpreted (STYLE.md).
 */
export function mapSpawnError(cause: unknown, binaryPath: string, source?: HarnessSource): SdkError {
  return mapProgramSpawnError(cause, {
    name: "harness binary",
    path: binaryPath,
    hint: pathHint(source),
    details: definedProperties({ source }),
  });
}

/**
 * {@link mapSpawnError} for any program this package starts (the harness, an NDJSON child, an ACP
 * agent): a missing or foreign program is configuration, so `FailedPrecondition` and not retryable.
 */
export function mapProgramSpawnError(cause: unknown, program: ProgramToStart): SdkError {
  if (cause instanceof SdkError) return cause;
  const { name, path, hint } = program;
  const code = errnoCode(cause);
  const reason = errorText(cause);
  const details = { binaryPath: path, errno: code, ...program.details };
  switch (code) {
    // A missing or foreign binary is configuration: the same start fails again until it is fixed (not retryable).
    case "ENOENT":
      return new SdkError(ErrorCode.FailedPrecondition, `${name} not found at ${path}: ${hint}`, { cause, details });
    case "EACCES":
    case "EPERM":
      return new SdkError(
        ErrorCode.PermissionDenied,
        `${name} at ${path} cannot be executed (${code}): make it executable (chmod +x), or: ${hint}`,
        { cause, details },
      );
    case "ENOEXEC":
    case "EBADARCH":
      return new SdkError(
        ErrorCode.FailedPrecondition,
        `${name} at ${path} is not an executable for this platform (${code}): install the build for ${process.platform}/${process.arch}`,
        { cause, details },
      );
    case "ENOTDIR":
    case "EISDIR":
      return new SdkError(ErrorCode.InvalidArgument, `${name} path ${path} is not a file (${code}): ${hint}`, {
        cause,
        details,
      });
    case "EMFILE":
    case "ENFILE":
    case "EAGAIN":
    case "ENOMEM":
      return new SdkError(
        ErrorCode.Unavailable,
        `could not start the ${name} at ${path}: the system is out of resources (${code}); close other processes or raise the limits`,
        { cause, details },
      );
    default:
      return new SdkError(ErrorCode.Unavailable, `could not start the ${name} at ${path}: ${reason}`, {
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
