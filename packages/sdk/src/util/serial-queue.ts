/**
 * Runs tasks one after another, in call order, whatever each one's outcome: a connection's one
 * gate for prompts (`Connection.send`). A task starts when every earlier one has settled.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after the tasks queued before it; settles as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
