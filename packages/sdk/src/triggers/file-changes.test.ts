import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "../errors.js";
import { FileChangeBatcher, type FileChange } from "./file-changes.js";

function batcher(
  maxPaths = 100,
  fail = false,
): { batcher: FileChangeBatcher; batches: { changes: FileChange[]; dropped: number }[]; errors: SdkError[] } {
  const batches: { changes: FileChange[]; dropped: number }[] = [];
  const errors: SdkError[] = [];
  const b = new FileChangeBatcher({
    // Long enough never to fire during a test: batches are flushed explicitly.
    debounceMs: 60_000,
    maxPaths,
    deliver: async (changes, dropped) => {
      batches.push({ changes, dropped });
      if (fail) throw new Error("callback broke");
    },
    onError: (error) => errors.push(error),
  });
  return { batcher: b, batches, errors };
}

describe("FileChangeBatcher", () => {
  it("debounces a burst into one batch with one entry per path, netting out the kinds", async () => {
    const { batcher: b, batches } = batcher();
    b.record("modified", "/w/a");
    b.record("modified", "/w/a");
    b.record("added", "/w/b");
    b.record("modified", "/w/b"); // still new in this batch
    b.record("added", "/w/c");
    b.record("deleted", "/w/c"); // came and went: nothing to report
    b.record("deleted", "/w/d");
    b.record("added", "/w/d"); // replaced
    await b.flush();
    expect(batches).toEqual([
      {
        changes: [
          { kind: "modified", path: "/w/a" },
          { kind: "added", path: "/w/b" },
          { kind: "modified", path: "/w/d" },
        ],
        dropped: 0,
      },
    ]);
    await b.flush(); // nothing pending: no empty batch
    expect(batches).toHaveLength(1);
    await b.close();
  });

  it("caps distinct paths per batch and counts the rest", async () => {
    const { batcher: b, batches } = batcher(2);
    for (let i = 0; i < 10_000; i++) b.record("modified", `/w/${i % 5}`);
    await b.flush();
    expect(batches).toEqual([
      {
        changes: [
          { kind: "modified", path: "/w/0" },
          { kind: "modified", path: "/w/1" },
        ],
        dropped: 6_000,
      },
    ]);
    await b.close();
  });

  it("delivers batches one at a time and goes on after a failing callback", async () => {
    const { batcher: b, batches, errors } = batcher(10, true);
    b.record("added", "/w/1");
    const first = b.flush();
    b.record("added", "/w/2");
    await Promise.all([first, b.flush()]);
    expect(batches.map((x) => x.changes[0]?.path)).toEqual(["/w/1", "/w/2"]);
    expect(errors.map((e) => e.message)).toEqual(["callback broke", "callback broke"]);
    await b.close();
  });

  it("delivers nothing after close(), and refuses bad options with InvalidArgument", async () => {
    const { batcher: b, batches } = batcher();
    b.record("added", "/w/x");
    await b.close();
    b.record("added", "/w/y");
    await b.flush();
    expect(batches).toEqual([]);
    for (const options of [
      { debounceMs: -1, maxPaths: 1 },
      { debounceMs: Number.NaN, maxPaths: 1 },
      { debounceMs: 0, maxPaths: 0 },
    ]) {
      expect(
        () => new FileChangeBatcher({ ...options, deliver: async () => undefined, onError: () => undefined }),
      ).toThrow(expect.objectContaining({ code: ErrorCode.InvalidArgument }));
    }
  });
});
