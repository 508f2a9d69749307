import { ErrorCode, SdkError } from "../errors.js";
import type { CallOptions } from "../call-options.js";
import { abortError, linkSignal, raceSignal } from "../util/abort.js";
import type { Trigger, TriggerContext } from "./trigger.js";

/** Options of {@link TriggerRunner}. */
export interface TriggerRunnerOptions {
  /** Receives failures of a trigger's `run` (default: `console.warn`). A failed trigger is not restarted. */
  onError?: (error: SdkError, trigger: Trigger) => void;
}

/** How long `stop()` waits for `run` tasks that ignore their signal, unless told otherwise. */
const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/**
 * Starts the agent's triggers when it starts and stops them when it stops
 * (antigravity-api.md §2.10). `run` tasks get a signal that aborts on `stop()`.
 *
 * @example
 * const runner = new TriggerRunner([every(1000, "tick")]);
 * await runner.start(context); // ... later
 * await runner.stop();
 */
export class TriggerRunner {
  readonly #triggers: Trigger[] = [];
  readonly #onError: (error: SdkError, trigger: Trigger) => void;
  #controller: AbortController | undefined;
  #started: Trigger[] = [];
  #tasks: Promise<void>[] = [];

  constructor(triggers: Iterable<Trigger> = [], options: TriggerRunnerOptions = {}) {
    for (const trigger of triggers) this.#triggers.push(trigger);
    this.#onError =
      options.onError ?? ((error) => globalThis.console?.warn(`antigravity: trigger failed: ${error.message}`));
  }

  /** Number of registered triggers. */
  get size(): number {
    return this.#triggers.length;
  }

  /** True between `start()` and `stop()`. */
  get running(): boolean {
    return this.#controller !== undefined;
  }

  /**
   * Calls every trigger's `start`, then launches every `run`. If a `start` throws, the triggers
   * already started are stopped and the error is rethrown (`FailedPrecondition` if already running).
   */
  async start(context: Omit<TriggerContext, "signal">): Promise<void> {
    if (this.#controller !== undefined)
      throw new SdkError(ErrorCode.FailedPrecondition, "triggers are already running; stop() them first");
    const controller = new AbortController();
    this.#controller = controller;
    const full: TriggerContext = { ...context, signal: controller.signal };
    try {
      for (const trigger of this.#triggers) {
        await trigger.start?.(full);
        this.#started.push(trigger);
      }
    } catch (error) {
      await this.stop();
      throw SdkError.from(error);
    }
    for (const trigger of this.#triggers) {
      if (trigger.run === undefined) continue;
      const task = Promise.resolve()
        .then(() => trigger.run?.(full, controller.signal))
        .catch((error: unknown) => {
          if (!controller.signal.aborted) this.#onError(SdkError.from(error), trigger);
        });
      this.#tasks.push(task);
    }
  }

  /**
   * Aborts the `run` tasks, calls every started trigger's `stop`, and waits for the tasks to end
   * (at most `timeoutMs`, default 5 s: a task that ignores its signal is left behind, not awaited).
   * Idempotent. Errors of `stop` go to `onError`.
   */
  async stop(options: CallOptions = {}): Promise<void> {
    const controller = this.#controller;
    if (controller === undefined) return;
    this.#controller = undefined;
    controller.abort(new SdkError(ErrorCode.Canceled, "the agent stopped"));
    const started = this.#started.splice(0);
    for (const trigger of started) {
      try {
        await trigger.stop?.();
      } catch (error) {
        this.#onError(SdkError.from(error), trigger);
      }
    }
    const tasks = Promise.all(this.#tasks.splice(0));
    const link = linkSignal({ timeoutMs: DEFAULT_STOP_TIMEOUT_MS, ...options });
    try {
      await raceSignal(tasks, link.signal);
    } catch (error) {
      // Only our own deadline or the caller's signal can end the wait early: report it, do not throw.
      if (link.signal.aborted)
        globalThis.console?.warn(`antigravity: ${abortError(link.signal).message} while stopping triggers`);
      else throw error;
    } finally {
      link.dispose();
    }
  }
}
