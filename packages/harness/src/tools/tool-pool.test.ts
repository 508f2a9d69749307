import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceRoots, type WorkspaceRoots } from "./workspace-paths.js";
import { ToolWorkerPool } from "./tool-pool.js";

// The pool with real workers (the TypeScript sources, loaded through tsx as in development).
describe("ToolWorkerPool", () => {
  let root: string;
  let workspace: WorkspaceRoots;
  const view = (file: string) => ({ tool: "view_file", args: { file_path: file }, workspace });
  const never = new AbortController().signal;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), "harness-pool-")));
    await writeFile(path.join(root, "a.txt"), "one\ntwo\n");
    workspace = await createWorkspaceRoots([root]);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("runs calls in a reused worker and returns the tool's outcome or its error", async () => {
    const pool = new ToolWorkerPool({ size: 1 });
    try {
      const outcome = await pool.run(view("a.txt"), never);
      expect(outcome.response).toMatchObject({ file_path: "a.txt", content: "one\ntwo\n", total_lines: 3 });
      await expect(pool.run(view("missing.txt"), never)).rejects.toThrow(/missing\.txt/);
      await pool.run(view("a.txt"), never);
      expect(pool.workerCount).toBe(1);
    } finally {
      await pool.close();
    }
    expect(pool.workerCount).toBe(0);
  });

  it("gives up a call waiting for a worker when its signal aborts, and fails calls on close", async () => {
    const pool = new ToolWorkerPool({ size: 1 });
    const first = pool.run(view("a.txt"), never);
    const controller = new AbortController();
    const queued = pool.run(view("a.txt"), controller.signal);
    controller.abort(new Error("halted"));
    await expect(queued).rejects.toThrow("halted");
    await first;
    const third = pool.run(view("a.txt"), never);
    await pool.close();
    await expect(third).rejects.toThrow("the harness is shutting down");
    await expect(pool.run(view("a.txt"), never)).rejects.toThrow("the harness is shutting down");
  });

  it("refuses a pool without a positive time limit or size", () => {
    expect(() => new ToolWorkerPool({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new ToolWorkerPool({ size: 0 })).toThrow(RangeError);
  });
});
