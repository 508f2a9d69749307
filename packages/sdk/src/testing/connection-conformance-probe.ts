import type { CallOptions } from "../call-options.js";
import type { Connection } from "../connection/connection.js";
import type { Turn, TurnOutcome } from "../connection/turn.js";
import { type ErrorCode, SdkError } from "../errors.js";
import type { Prompt } from "../prompt.js";
import { StepSource, type Step } from "../step.js";

// The conformance kit's hands on a connection. Each use of the `Connection` and `Turn` API sits
// in one small function here (send, observeTurns, receiveSteps, the turn's outcome), so a change
// of that API is a one-line change of the kit.

/** Default bound of every wait of a check, in milliseconds. */
export const DEFAULT_WAIT_MS = 10_000;
const POLL_MS = 5;

/** What the kit's observer saw of one turn. */
export interface TurnRecord {
  readonly turn: Turn;
  /** True when `send()` started it. */
  readonly solicited: boolean;
  /** Entries the turn already held when it was reported (0 for a conforming connection). */
  readonly sizeAtReport: number;
  /** Whether every earlier turn was over when this one was reported. */
  readonly earlierOver: boolean;
  /** Why the recorder could not be attached, if it could not. */
  readonly attachError: unknown;
  /** Every step update the recorder got, in order. */
  readonly steps: Step[];
  /** The outcome the recorder was told of, once the turn ended. */
  ending: TurnOutcome | undefined;
  /** Updates of the turn's steps after its end. */
  readonly late: Step[];
}

/** How a reader ended: the error it threw, or `failure` when the kit's own assertion inside it failed. */
export interface ReadEnd {
  readonly error?: unknown;
  readonly failure?: Error;
}

/** A reader of `receiveSteps` running in the background. */
export interface Reader {
  /** The steps it got so far. */
  readonly steps: Step[];
  /** Resolves when it ended; never rejects. */
  readonly ended: Promise<ReadEnd>;
  /** Releases it (`return()` on its iterator). */
  release(): void;
}

/** Options of {@link Probe.read}. */
export interface ReadOptions extends CallOptions {
  /** Called with each step as the reader gets it; a throw ends the reader with a `failure`. */
  onStep?(step: Step, index: number): void;
  /** Stops (breaks out) after this many steps. */
  stopAfter?: number;
}

/** A connection under test, its observer attached: every wait bounded by `waitMs`. */
export class Probe {
  readonly connection: Connection;
  readonly waitMs: number;
  readonly turns: TurnRecord[] = [];

  constructor(connection: Connection, waitMs = DEFAULT_WAIT_MS) {
    this.connection = connection;
    this.waitMs = waitMs;
    connection.observeTurns({ turnStarted: (turn) => this.turns.push(record(turn, this.turns)) });
  }

  /** `connection.send(prompt, options)`, unbounded: the kit's one call of `send`. */
  start(prompt: Prompt, options?: CallOptions): Promise<Turn> {
    return this.connection.send(prompt, options);
  }

  /** `send(prompt)`, bounded; returns the record of the turn it resolved with, which the observer must have been told of. */
  async send(prompt: Prompt, what: string): Promise<TurnRecord> {
    return this.recordOf(
      await this.within(this.start(prompt), `send() of ${what}`),
      `the turn send() of ${what} resolved with`,
    );
  }

  /** The record of `turn`; fails when the observer was never told of it. */
  recordOf(turn: Turn, what: string): TurnRecord {
    const found = this.turns.find((entry) => entry.turn === turn);
    if (found === undefined) throw new Error(`${what} was not reported to the observer (observeTurns) by then`);
    return found;
  }

  /** Starts a reader of the current turn, `connection.receiveSteps(options)`. */
  read(options: ReadOptions = {}): Reader {
    const { onStep, stopAfter, ...callOptions } = options;
    const iterator = this.connection.receiveSteps(callOptions)[Symbol.asyncIterator]();
    const steps: Step[] = [];
    const ended = (async (): Promise<ReadEnd> => {
      try {
        for (;;) {
          if (stopAfter !== undefined && steps.length >= stopAfter) {
            await iterator.return?.();
            return {};
          }
          const next = await iterator.next();
          if (next.done === true) return {};
          steps.push(next.value);
          try {
            onStep?.(next.value, steps.length - 1);
          } catch (failure) {
            await iterator.return?.();
            return { failure: failure instanceof Error ? failure : new Error(String(failure)) };
          }
        }
      } catch (error) {
        return { error };
      }
    })();
    return { steps, ended, release: () => void iterator.return?.()?.catch(() => undefined) };
  }

  /** Waits for `reader` to end; a reader that does not end in time is released and the check fails. */
  async finish(reader: Reader, what: string): Promise<ReadEnd> {
    try {
      const end = await this.within(reader.ended, what);
      if (end.failure !== undefined) throw end.failure;
      return end;
    } catch (error) {
      reader.release();
      throw error;
    }
  }

  /** The outcome of `record`'s turn once it is over, bounded. */
  over(record: TurnRecord, what: string): Promise<TurnOutcome> {
    return this.within(record.turn.over(), `${what}: the turn to end`);
  }

  /** Polls `condition` until it holds; fails after `waitMs` naming `what`. */
  async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${this.waitMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** `promise`, or a failure naming `what` once `waitMs` passed. */
  within<T>(promise: PromiseLike<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${this.waitMs} ms waiting for ${what}`)), this.waitMs);
    });
    return Promise.race([Promise.resolve(promise), timeout]).finally(() => clearTimeout(timer));
  }

  /** True once `record`'s turn is over. */
  settled(record: TurnRecord): boolean {
    return record.turn.settled;
  }

  /** The session's total token count. */
  totalTokens(): number {
    return this.connection.usage.total.totalTokenCount;
  }
}

/** Attaches the kit's recorder to a newly reported turn. */
function record(turn: Turn, earlier: readonly TurnRecord[]): TurnRecord {
  const entry: TurnRecord = {
    turn,
    solicited: turn.solicited,
    sizeAtReport: turn.size,
    earlierOver: earlier.every((e) => e.turn.settled), // the Turn API, as in Probe.settled
    attachError: undefined,
    steps: [],
    ending: undefined,
    late: [],
  };
  try {
    turn.record({
      step: (step) => entry.steps.push(step),
      ending: (outcome) => (entry.ending = outcome),
      late: (step) => entry.late.push(step),
    });
  } catch (error) {
    (entry as { attachError: unknown }).attachError = error ?? new Error("record() threw");
  }
  return entry;
}

/** Fails unless `actual` is `expected`. */
export function equal(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Fails unless `condition`. */
export function truthy(condition: boolean, what: string): void {
  if (!condition) throw new Error(`${what}: not so`);
}

/** Fails unless `error` is an `SdkError`, with `code` when given; returns it. */
export function sdkError(error: unknown, what: string, ...codes: ErrorCode[]): SdkError {
  if (!(error instanceof SdkError))
    throw new Error(
      `${what}: expected an SdkError${codes.length > 0 ? ` ${codes.join(" or ")}` : ""}, got ${describeError(error)}`,
    );
  if (codes.length > 0 && !codes.includes(error.code))
    throw new Error(`${what}: expected SdkError ${codes.join(" or ")}, got ${error.code}: ${error.message}`);
  return error;
}

/** Fails unless `promise` rejects with an `SdkError` of one of `codes`. */
export async function rejectsWith(
  probe: Probe,
  promise: Promise<unknown>,
  what: string,
  ...codes: ErrorCode[]
): Promise<SdkError> {
  let result: unknown;
  try {
    result = await probe.within(promise, what);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("timed out after")) throw error;
    return sdkError(error, what, ...codes);
  }
  throw new Error(`${what}: expected SdkError ${codes.join(" or ")}, but it resolved with ${show(result)}`);
}

/** Fails unless the reader ended without error. */
export function endedWell(end: ReadEnd, what: string): void {
  if (end.error !== undefined)
    throw new Error(`${what}: expected the reader to end normally, it threw ${describeError(end.error)}`);
}

/** True when `a` and `b` are the same update of the same step. */
export function sameUpdate(a: Step | undefined, b: Step): boolean {
  return (
    a !== undefined && a.id === b.id && a.status === b.status && a.content === b.content && a.thinking === b.thinking
  );
}

/** A step as a message shows it. */
export function showStep(step: Step | undefined): string {
  return step === undefined ? "nothing" : `${step.id} ${step.status} ${JSON.stringify(step.content.slice(0, 40))}`;
}

/** True when any of `steps` carries text from the model (not the echo of the user's prompt). */
export function hasText(steps: readonly Step[]): boolean {
  return steps.some((step) => step.source === StepSource.Model && step.content !== "");
}

function describeError(error: unknown): string {
  if (error === undefined) return "nothing (it resolved)";
  return error instanceof Error ? `${error.name}: ${error.message}` : show(error);
}

function show(value: unknown): string {
  try {
    return (typeof value === "string" ? JSON.stringify(value) : String(value)).slice(0, 200);
  } catch {
    return typeof value;
  }
}
