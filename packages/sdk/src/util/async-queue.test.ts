import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors.js";
import { AsyncQueue } from "./async-queue.js";

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

describe("AsyncQueue", () => {
  it("delivers buffered values in order, then completes", async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    q.push(2);
    q.end();
    expect(await collect(q)).toEqual([1, 2]);
  });

  it("wakes a waiting consumer on push and on end", async () => {
    const q = new AsyncQueue<string>();
    const all = collect(q);
    await Promise.resolve();
    q.push("a");
    await Promise.resolve();
    q.push("b");
    q.end();
    expect(await all).toEqual(["a", "b"]);
  });

  it("throws the fail error after the buffered values", async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    q.fail(new Error("broken"));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const v of q) seen.push(v);
      })(),
    ).rejects.toThrow("broken");
    expect(seen).toEqual([1]);
    // The error is reported once; afterwards the queue reads as done.
    await expect(q.read()).resolves.toEqual({ done: true, value: undefined });
  });

  it("rejects a waiting reader on fail", async () => {
    const q = new AsyncQueue<number>();
    const r = q.read();
    q.fail(new Error("late"));
    await expect(r).rejects.toThrow("late");
  });

  it("refuses pushes once closed", () => {
    const q = new AsyncQueue<number>();
    expect(q.push(1)).toBe(true);
    q.end();
    expect(q.closed).toBe(true);
    expect(q.push(2)).toBe(false);
    q.fail(new Error("ignored"));
    expect(q.size).toBe(1);
  });

  it("breaking out of for-await releases: buffer dropped, pushes refused, onRelease called once", async () => {
    let releases = 0;
    const q = new AsyncQueue<number>({ onRelease: () => releases++ });
    for (let i = 0; i < 5; i++) q.push(i);
    for await (const v of q) {
      if (v === 1) break;
    }
    expect(q.released).toBe(true);
    expect(q.size).toBe(0);
    expect(q.push(9)).toBe(false);
    q.release();
    expect(releases).toBe(1);
  });

  it("has a single consumer", async () => {
    const q = new AsyncQueue<number>();
    q[Symbol.asyncIterator]();
    expect(() => q[Symbol.asyncIterator]()).toThrow(expect.objectContaining({ code: ErrorCode.FailedPrecondition }));
    const pending = q.read();
    await expect(q.read()).rejects.toMatchObject({ code: ErrorCode.FailedPrecondition });
    q.push(3);
    await expect(pending).resolves.toEqual({ done: false, value: 3 });
  });

  it("an aborted read loses no value and detaches its listener", async () => {
    const q = new AsyncQueue<number>();
    const controller = new AbortController();
    const r = q.read(controller.signal);
    controller.abort();
    await expect(r).rejects.toMatchObject({ code: ErrorCode.Canceled });
    q.push(5);
    await expect(q.read(controller.signal)).resolves.toEqual({ done: false, value: 5 });
    await expect(q.read(AbortSignal.abort())).rejects.toMatchObject({ code: ErrorCode.Canceled });
  });

  it("stays correct over many push/read cycles (front compaction)", async () => {
    const q = new AsyncQueue<number>();
    let expected = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) q.push(round * 100 + i);
      for (let i = 0; i < 70; i++) {
        const r = await q.read();
        expect(r).toEqual({ done: false, value: expected++ });
      }
    }
    q.end();
    const rest = await collect(q);
    expect(rest.length).toBe(50 * 100 - 50 * 70);
    expect(rest[0]).toBe(expected);
    expect(rest.at(-1)).toBe(4999);
  });

  it("readerIterator: leaving a loop early keeps the queue and its values for the next reader", async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    q.push(2);
    q.push(3);
    for await (const n of { [Symbol.asyncIterator]: () => q.readerIterator() }) {
      expect(n).toBe(1);
      break;
    }
    expect(q.released).toBe(false);
    expect(await q.read()).toEqual({ done: false, value: 2 });
    q.end();
    expect(await collect({ [Symbol.asyncIterator]: () => q.readerIterator() })).toEqual([3]);
  });
});
