import { SdkError } from "../errors.js";
import type { Step, UsageMetadata } from "../types.js";
import { raceSignal } from "../util/abort.js";

/** How a turn reader reports to its conversation. */
export interface TurnReaderHooks {
  /** Stores a step update in history. */
  record(step: Step): Promise<void>;
  /** Called once when the turn is over (ended or failed). */
  finish(summary: TurnSummary): Promise<void>;
}

/** What a reader saw of its turn. */
export interface TurnSummary {
  /** Whether at least one step arrived. */
  sawSteps: boolean;
  /** Latest legacy per-step usage of each step id (§14, pre-0.1.10 harnesses). */
  stepUsages: UsageMetadata[];
}

type Pull = { ok: true; result: IteratorResult<Step> } | { ok: false; error: unknown };

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * Reads one turn from `Connection.receiveSteps()` and records every step it pulls. A consumer
 * reads through `next(signal)`; when it goes away early, `drain()` reads the rest into history.
 *
 * An aborted `next` leaves the pull it was waiting for in flight, and the next `next` (usually
 * the drain's) picks it up, so no step is ever lost between the consumer and the drain.
 */
export class TurnReader {
  readonly #iterator: AsyncIterator<Step>;
  readonly #hooks: TurnReaderHooks;
  readonly #stepUsages = new Map<string, UsageMetadata>();
  #pending: Promise<Pull> | undefined;
  #finished = false;
  #sawSteps = false;

  constructor(steps: AsyncIterable<Step>, hooks: TurnReaderHooks) {
    this.#iterator = steps[Symbol.asyncIterator]();
    this.#hooks = hooks;
  }

  /** True once the turn ended or failed. */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * The next step, already recorded; `done` at the end of the turn. Throws the turn's `SdkError`,
   * or the signal's `SdkError` when `signal` aborts first (the turn is then still unfinished).
   */
  async next(signal?: AbortSignal): Promise<IteratorResult<Step, undefined>> {
    if (this.#finished) return DONE;
    this.#pending ??= this.#iterator.next().then(
      (result): Pull => ({ ok: true, result }),
      (error: unknown): Pull => ({ ok: false, error }),
    );
    const pulled = await raceSignal(this.#pending, signal);
    this.#pending = undefined;
    if (!pulled.ok) {
      await this.#finish();
      throw SdkError.from(pulled.error);
    }
    if (pulled.result.done === true) {
      await this.#finish();
      return DONE;
    }
    const step = pulled.result.value;
    this.#sawSteps = true;
    if (step.usageMetadata !== undefined) this.#stepUsages.set(step.id, step.usageMetadata);
    await this.#hooks.record(step);
    return { done: false, value: step };
  }

  /**
   * Reads the rest of the turn into history, after `before` settles (e.g. a halt request).
   * Never rejects: a failure of a turn nobody is reading any more has no one to report to.
   */
  async drain(before?: Promise<unknown>): Promise<void> {
    await before?.catch(() => undefined);
    try {
      while (!(await this.next()).done);
    } catch {
      // The turn failed (halted, execution error, connection closed): it is over, history keeps what arrived.
    }
  }

  async #finish(): Promise<void> {
    this.#finished = true;
    await this.#hooks.finish({ sawSteps: this.#sawSteps, stepUsages: [...this.#stepUsages.values()] });
  }
}
