import { ErrorCode, SdkError } from "@antigravity-ts/sdk";

/** How to point the SDK at a harness binary; appended to every "not found" message. */
export const HARNESS_PATH_HINT = "set ANTIGRAVITY_HARNESS_PATH or the harnessPath option";

/**
 * Maps a Node system error raised while starting or talking to the harness binary to an
 * `SdkError` a user can act on. This is the only place Node errnos are interpreted (STYLE.md).
 */
export function mapSpawnError(cause: unknown, binaryPath: string): SdkError {
  if (cause instanceof SdkError) return cause;
  const code = errnoCode(cause);
  const reason = cause instanceof Error ? cause.message : String(cause);
  const details = { binaryPath, errno: code };
  switch (code) {
    case "ENOENT":
      return new SdkError(ErrorCode.Unavailable, `harness binary not found at ${binaryPath}: ${HARNESS_PATH_HINT}`, { cause, details });
    case "EACCES":
    case "EPERM":
      return new SdkError(ErrorCode.PermissionDenied, `harness binary at ${binaryPath} cannot be executed (${code}): make it executable (chmod +x) or ${HARNESS_PATH_HINT}`, { cause, details });
    case "ENOEXEC":
    case "EBADARCH":
      return new SdkError(ErrorCode.Unavailable, `harness binary at ${binaryPath} is not an executable for this platform (${code}): install the build for ${process.platform}/${process.arch}`, { cause, details });
    case "ENOTDIR":
    case "EISDIR":
      return new SdkError(ErrorCode.InvalidArgument, `harness path ${binaryPath} is not a file (${code}): ${HARNESS_PATH_HINT}`, { cause, details });
    case "EMFILE":
    case "ENFILE":
    case "EAGAIN":
    case "ENOMEM":
      return new SdkError(ErrorCode.Unavailable, `could not start the harness at ${binaryPath}: the system is out of resources (${code}); close other processes or raise the limits`, { cause, details });
    default:
      return new SdkError(ErrorCode.Unavailable, `could not start the harness at ${binaryPath}: ${reason}`, { cause, details });
  }
}

/** The `code` of a Node system error (`"ENOENT"` ...), or `undefined`. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
