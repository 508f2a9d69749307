import { raceSignal } from "../util/abort.js";

/**
 * Prompts go out one at a time: each send starts when the sends before it are done (or gave up),
 * in call order, whatever their signals do.
 */
export class SendQueue {
  #tail: Promise<void> = Promise.resolve();

  /** Settles when every send queued so far is done or gave up (a new promise after each `run`). */
  settled(): Promise<void> {
    return this.#tail;
  }

  /** Runs `send` after every earlier one; waiting for them is bounded by `signal`. */
  async run<T>(signal: AbortSignal, send: () => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.#tail = Promise.all([previous, mine]).then(() => undefined);
    try {
      await raceSignal(previous, signal);
      return await send();
    } finally {
      done();
    }
  }
}
