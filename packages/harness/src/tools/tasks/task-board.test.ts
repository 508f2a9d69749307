import { describe, expect, it } from "vitest";
import { MAX_TASKS, TaskBoard } from "./task-board.js";
import { parseCron } from "./cron.js";

describe("TaskBoard", () => {
  it("fires a one-shot timer once, with its prompt, through a real timer", async () => {
    const board = new TaskBoard();
    const ended = new AbortController();
    const delivered = new Promise<string>((resolve) => board.attach(resolve, ended.signal));
    const task = board.schedule("check the oven", { delaySeconds: 1 }, "oven");
    expect(task).toMatchObject({ task_id: "task-1", kind: "timer", status: "scheduled", runs: 0 });
    expect(await delivered).toBe("[scheduled task task-1: oven] check the oven");
    expect(board.describe("task-1")).toMatchObject({ status: "done", runs: 1 });
    ended.abort();
  });

  it("cancels timers, and clears every timer when the session ends", async () => {
    const board = new TaskBoard();
    const ended = new AbortController();
    const fired: string[] = [];
    board.attach((text) => fired.push(text), ended.signal);
    board.schedule("a", { delaySeconds: 3600 }, "");
    board.schedule("b", { cron: parseCron("* * * * *") }, "every minute");
    expect(await board.cancel("task-1")).toMatchObject({ status: "cancelled" });
    expect(board.active).toBe(1);
    ended.abort();
    await Promise.resolve();
    expect(board.describe("task-2")).toMatchObject({ status: "cancelled" });
    expect(() => board.schedule("c", { delaySeconds: 1 }, "")).toThrow(/session is ending/);
    expect(fired).toEqual([]);
  });

  it("bounds the number of tasks, forgetting finished ones first", async () => {
    const board = new TaskBoard();
    board.attach(() => {}, new AbortController().signal);
    for (let i = 0; i < MAX_TASKS; i++) board.schedule(`t${i}`, { delaySeconds: 3600 }, "");
    expect(() => board.schedule("one more", { delaySeconds: 3600 }, "")).toThrow(/at most 32 tasks/);
    await board.cancel("task-1");
    expect(board.schedule("now it fits", { delaySeconds: 3600 }, "")).toMatchObject({ task_id: "task-34" });
    expect(() => board.describe("task-1")).toThrow(/no task "task-1"/);
    await board.close();
  });
});
