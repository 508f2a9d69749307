import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "./log.js";

/** What a fault that escaped is charged to: one session. */
export interface FaultOwner {
  /** Names the owner in the log, e.g. `session 1f2e…`. */
  readonly description: string;
  /** Ends the owner after a fault (closes the session); must not throw. */
  fault(error: unknown): void;
}

const owners = new AsyncLocalStorage<FaultOwner>();

/**
 * Runs `action` on behalf of `owner`: an exception or rejection that escapes anything it starts
 * (promise chains, timers, socket callbacks) is charged to `owner` by {@link installCrashGuard}.
 */
export function runOnBehalfOf<T>(owner: FaultOwner, action: () => T): T {
  return owners.run(owner, action);
}

/**
 * Process-level hygiene of the harness: a bug in one session must not kill the process. An
 * uncaught exception or unhandled rejection is logged to stderr and closes only the session on
 * whose behalf the failing code ran ({@link runOnBehalfOf}); one outside any session is logged
 * and the harness keeps serving. Write errors on stdout/stderr (EPIPE once the reader went away)
 * are ignored: logging must never be what ends the process. Returns a function that uninstalls
 * the handlers.
 */
export function installCrashGuard(log: Logger): () => void {
  const handler =
    (kind: string) =>
    (error: unknown): void => {
      const owner = owners.getStore();
      if (owner === undefined) {
        log.error(`${kind} outside any session (the harness keeps running): ${describe(error)}`);
        return;
      }
      log.error(`${kind} in ${owner.description}; closing that session: ${describe(error)}`);
      try {
        owner.fault(error);
      } catch (secondary) {
        log.error(`could not close ${owner.description} after the fault: ${describe(secondary)}`);
      }
    };
  const onUncaught = handler("uncaught exception");
  const onRejection = handler("unhandled rejection");
  const ignore = (): void => {};
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onRejection);
  process.stdout.on("error", ignore);
  process.stderr.on("error", ignore);
  return () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onRejection);
    process.stdout.off("error", ignore);
    process.stderr.off("error", ignore);
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
