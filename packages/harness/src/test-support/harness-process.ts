import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

// Test helper: runs the harness as a real subprocess (`node --conditions=source --import tsx
// src/bin.ts`), exactly as a client would, and tracks every child so tests can kill them.

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const binPath = path.join(packageDir, "src/bin.ts");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const children = new Set<ChildProcessWithoutNullStreams>();
/** Safety bound of every wait in these helpers; a failing test fails with the harness's stderr. */
export const WAIT_MS = 20_000;

/** A running harness subprocess. */
export interface HarnessProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves when stderr contains `text`; rejects if the process exits first. */
  waitForStderr(text: string | RegExp): Promise<string>;
}

/** A harness in listen mode. */
export interface ListenHarness extends HarnessProcess {
  readonly port: number;
  readonly apiKey: string;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Environment for harness children: no model credentials, scripted model forced. */
export function harnessEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(GEMINI_|OPENAI_|ANTIGRAVITY_)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ANTIGRAVITY_MODEL_PROVIDER: "scripted", ...extra };
}

/** Options of {@link spawnHarness}. */
export interface SpawnOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Extra Node options before the script, e.g. `["--import", url]` to preload a module. */
  nodeArgs?: readonly string[];
}

/** Spawns `antigravity-harness` with `args` (stdio mode when empty). */
export function spawnHarness(args: readonly string[], options: SpawnOptions = {}): HarnessProcess {
  const child = spawn(process.execPath, ["--conditions=source", "--import", tsxLoader, ...(options.nodeArgs ?? []), binPath, ...args], {
    cwd: options.cwd ?? packageDir,
    env: options.env ?? harnessEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child);
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  const waitForStderr = (text: string | RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`timed out waiting for ${String(text)} on stderr:\n${stderr}`)), WAIT_MS);
      const check = (): void => {
        const match = typeof text === "string" ? (stderr.includes(text) ? text : null) : (text.exec(stderr)?.[0] ?? null);
        if (match !== null) done(undefined, match);
        else if (child.exitCode !== null || child.signalCode !== null) done(new Error(`harness exited (${child.exitCode ?? child.signalCode}) before printing ${String(text)}:\n${stderr}`));
      };
      const done = (error?: Error, match?: string): void => {
        clearTimeout(timer);
        listeners.delete(check);
        if (error) reject(error);
        else resolve(match as string);
      };
      listeners.add(check);
      check();
    });
  return { child, exited, stderr: () => stderr, waitForStderr };
}

/** Options of {@link startListenHarness}. */
export interface ListenOptions extends Omit<SpawnOptions, "cwd"> {
  args?: readonly string[];
  apiKey?: string;
}

/** Starts a listen-mode harness on an ephemeral port and waits for "listening on ws://…". */
export async function startListenHarness(options: ListenOptions = {}): Promise<ListenHarness> {
  const apiKey = options.apiKey ?? "test-key-0123456789";
  // The key travels in the environment, never on the command line (issue 8 item 10).
  const spawnOptions: SpawnOptions = {
    env: { ...(options.env ?? harnessEnv()), ANTIGRAVITY_API_KEY: apiKey },
    ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
  };
  const harness = spawnHarness(["--listen", "127.0.0.1:0", ...(options.args ?? [])], spawnOptions);
  const line = await harness.waitForStderr(/listening on ws:\/\/127\.0\.0\.1:\d+\//);
  const port = Number(/:(\d+)\/$/.exec(line)?.[1]);
  return {
    ...harness,
    port,
    apiKey,
    async stop() {
      if (harness.child.exitCode === null && harness.child.signalCode === null) harness.child.kill("SIGTERM");
      return harness.exited;
    },
  };
}

/** Kills every harness still running (afterAll). */
export async function killAllHarnesses(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve)))));
}

/** Waits until `pid` is gone; false if it is still there after {@link WAIT_MS}. */
export async function waitUntilGone(pid: number): Promise<boolean> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(20)) if (processGone(pid)) return true;
  return processGone(pid);
}

/** Whether a process is gone (or a zombie, which holds no resources and runs nothing). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
