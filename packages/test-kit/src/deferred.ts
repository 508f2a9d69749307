/** A promise with its resolve and reject handed out: a test's gate or signal. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * A promise settled from outside.
 *
 * @example
 * const gate = deferred();
 * const tool = defineTool({ …, call: async () => { await gate.promise; return "done"; } });
 * gate.resolve();
 */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
