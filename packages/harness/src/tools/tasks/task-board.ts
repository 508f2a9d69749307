import type { CronSchedule } from "./cron.js";
import type { CommandProcess } from "../command-process.js";

// A session's background tasks (upstream 0.1.18: the `schedule` tool's one-shot timers and cron
// jobs, `manage_task` to list and stop them, and run_command's daemon commands, CHANGELOG.md
// @1493021): real timers and real processes, owned by the session. A timer that fires delivers its
// prompt to the conversation as an automated trigger (a turn of its own, or the running turn's
// next model call, §13). A daemon command runs as run_command's commands do (tools/command-process.ts:
// its own session, supervised, the sandbox when asked for) and is killed when it is cancelled,
// when the session ends, and with the harness. Nothing is kept across sessions.

/** Most tasks a session has at once (finished ones are forgotten first). */
export const MAX_TASKS = 32;
/** Longest delay of a one-shot timer (setTimeout's limit is 24.8 days). */
export const MAX_DELAY_SECONDS = 7 * 24 * 60 * 60;

export type TaskStatus = "scheduled" | "running" | "done" | "failed" | "cancelled";

interface TaskBase {
  readonly id: string;
  readonly description: string;
  readonly createdAt: Date;
  status: TaskStatus;
}

interface TimerTask extends TaskBase {
  readonly kind: "timer" | "cron";
  readonly prompt: string;
  readonly cron: CronSchedule | undefined;
  nextRun: Date | undefined;
  runs: number;
  timer: NodeJS.Timeout | undefined;
}

interface CommandTask extends TaskBase {
  readonly kind: "command";
  readonly commandLine: string;
  readonly cwd: string;
  readonly process: CommandProcess;
  exitCode: number | undefined;
}

type Task = TimerTask | CommandTask;

/** What {@link TaskBoard.describe} tells the model of a task. */
export type TaskView = Record<string, unknown>;

/** A session's timers and background commands. */
export class TaskBoard {
  readonly #tasks = new Map<string, Task>();
  #sequence = 0;
  #deliver: ((text: string) => void) | undefined;
  #closed = false;

  /**
   * Where fired timers go (the session's turn queue), until `ended` aborts: then every timer is
   * cleared and every command killed.
   */
  attach(deliver: (text: string) => void, ended: AbortSignal): void {
    this.#deliver = deliver;
    if (ended.aborted) void this.close();
    else ended.addEventListener("abort", () => void this.close(), { once: true });
  }

  /** A one-shot timer (`delaySeconds`) or a cron job that delivers `prompt` when it fires. */
  schedule(prompt: string, when: { delaySeconds: number } | { cron: CronSchedule }, description: string): TaskView {
    const now = new Date();
    const cron = "cron" in when ? when.cron : undefined;
    const nextRun = "cron" in when ? when.cron.nextAfter(now) : new Date(now.getTime() + when.delaySeconds * 1000);
    if (nextRun === undefined) throw new Error(`cron ${JSON.stringify(cron?.expression)} never runs`);
    const task: TimerTask = {
      id: this.#newId(),
      kind: cron === undefined ? "timer" : "cron",
      description,
      createdAt: now,
      status: "scheduled",
      prompt,
      cron,
      nextRun,
      runs: 0,
      timer: undefined,
    };
    this.#add(task);
    this.#arm(task);
    return this.describe(task.id);
  }

  /** Registers a started background command. */
  command(commandLine: string, cwd: string, process: CommandProcess, description: string): TaskView {
    const task: CommandTask = {
      id: this.#newId(),
      kind: "command",
      description,
      createdAt: new Date(),
      status: "running",
      commandLine,
      cwd,
      process,
      exitCode: undefined,
    };
    this.#add(task);
    void process.exited.then((code) => {
      task.exitCode = code;
      if (task.status === "running") task.status = code === 0 ? "done" : "failed";
    });
    return this.describe(task.id);
  }

  /** Every task, oldest first. */
  list(): TaskView[] {
    return [...this.#tasks.keys()].map((id) => this.describe(id));
  }

  /** What the model is told of a task; with `output`, a command's output so far. */
  describe(id: string, output = false): TaskView {
    const task = this.#get(id);
    const common = { task_id: task.id, kind: task.kind, status: task.status, description: task.description };
    if (task.kind === "command")
      return {
        ...common,
        command_line: task.commandLine,
        cwd: task.cwd,
        ...(task.exitCode === undefined ? {} : { exit_code: task.exitCode }),
        ...(output ? { output: task.process.output() } : {}),
      };
    return {
      ...common,
      prompt: task.prompt,
      ...(task.cron === undefined ? {} : { cron: task.cron.expression }),
      ...(task.nextRun === undefined || task.status !== "scheduled" ? {} : { next_run: task.nextRun.toISOString() }),
      runs: task.runs,
    };
  }

  /** Stops a task: clears its timer or kills its command (and everything it started). */
  async cancel(id: string): Promise<TaskView> {
    const task = this.#get(id);
    if (task.status === "scheduled" || task.status === "running") {
      task.status = "cancelled";
      if (task.kind === "command") await task.process.kill();
      else clearTimeout(task.timer);
    }
    return this.describe(id);
  }

  /** Number of tasks still scheduled or running. */
  get active(): number {
    return [...this.#tasks.values()].filter((task) => task.status === "scheduled" || task.status === "running").length;
  }

  /** Clears every timer and kills every command; later calls add nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    const stops: Promise<void>[] = [];
    for (const task of this.#tasks.values()) {
      if (task.kind === "command") stops.push(task.process.kill());
      else clearTimeout(task.timer);
      if (task.status === "scheduled" || task.status === "running") task.status = "cancelled";
    }
    await Promise.all(stops);
  }

  #newId(): string {
    return `task-${++this.#sequence}`;
  }

  #add(task: Task): void {
    if (this.#closed) {
      if (task.kind === "command") void task.process.kill();
      throw new Error("the session is ending; no new task is started");
    }
    if (this.#tasks.size >= MAX_TASKS) {
      const finished = [...this.#tasks.values()].find((t) => t.status !== "scheduled" && t.status !== "running");
      if (finished === undefined) {
        if (task.kind === "command") void task.process.kill();
        throw new Error(`a session has at most ${MAX_TASKS} tasks; cancel one with manage_task first`);
      }
      this.#tasks.delete(finished.id);
    }
    this.#tasks.set(task.id, task);
  }

  #arm(task: TimerTask): void {
    if (task.nextRun === undefined || task.status !== "scheduled") return;
    const delay = Math.max(0, task.nextRun.getTime() - Date.now());
    task.timer = setTimeout(() => this.#fire(task), delay);
    task.timer.unref();
  }

  #fire(task: TimerTask): void {
    if (task.status !== "scheduled" || this.#closed) return;
    task.runs++;
    const next = task.cron?.nextAfter(new Date());
    task.nextRun = next;
    if (next === undefined) task.status = "done";
    this.#deliver?.(
      `[scheduled task ${task.id}${task.description === "" ? "" : `: ${task.description}`}] ${task.prompt}`,
    );
    this.#arm(task);
  }

  #get(id: string): Task {
    const task = this.#tasks.get(id);
    if (task === undefined)
      throw new Error(
        `no task ${JSON.stringify(id)}; tasks: ${[...this.#tasks.keys()].join(", ") || "none"} (manage_task action list)`,
      );
    return task;
  }
}
