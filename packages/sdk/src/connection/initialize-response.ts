import { ErrorCode, SdkError } from "../errors.js";
import { linkSignal, raceSignal } from "../util/abort.js";
import { withStage } from "../transport/websocket-errors.js";

/** How long the harness may take to answer the configuration unless told otherwise (protocol §5). */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 60_000;

export /**
 * Waits for the `initializeConversationResponse` (§5), never longer than `timeoutMs` even when the
 * caller set no bound. Only harnesses of protocol era A (before ≈0.1.4; the community Rust SDK's
 * mock harness is one) never send it; this SDK speaks era D and does not support them
 * (docs/upstream-differences.md), so a missing answer fails with a message that says so.
 */
async function awaitInitializeResponse(
  ready: Promise<void>,
  signal: AbortSignal,
  timeoutMs: number,
  peer?: string,
): Promise<void> {
  const bound = linkSignal({ timeoutMs }, signal);
  try {
    await raceSignal(ready, bound.signal);
  } catch (error) {
    const sdkError = SdkError.from(error);
    if (sdkError.code !== ErrorCode.DeadlineExceeded) throw sdkError;
    // The caller's deadline ran out first: say where, as the transport's own init limit does.
    if (signal.aborted && peer !== undefined) throw withStage(sdkError, peer, "init");
    throw new SdkError(
      ErrorCode.DeadlineExceeded,
      `the harness sent no initializeConversationResponse (protocol §5) in time (${sdkError.message}): it did not accept the session configuration. Harnesses before ≈0.1.4 (protocol era A, e.g. the community Rust SDK's mock) never send one and are not supported; this SDK speaks the protocol of ≈0.1.11 and later (docs/upstream-differences.md)`,
      // The details say where it stalled (e.g. a WebSocketTransport's url and stage `init`).
      { cause: sdkError, details: sdkError.details },
    );
  } finally {
    bound.dispose();
  }
}
