import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Runs the reference harness from its TypeScript sources (`node --conditions=source --import tsx
// packages/harness/src/bin.ts`), as a listen-mode server or as an executable for transports that
// spawn the harness themselves. Every child is tracked so the suite can kill it.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const harnessBin = path.join(repoRoot, "packages/harness/src/bin.ts");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const children = new Set<ChildProcessWithoutNullStreams>();
const STARTUP_TIMEOUT_MS = 30_000;

/** Environment for harness children: no model credentials, the scripted model with `script`. */
export function harnessEnv(script: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(GEMINI_|OPENAI_|ANTIGRAVITY_|GOOGLE_)/.test(key)) env[key] = value;
  }
  return { ...env, ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: script };
}

/** A harness serving `ws://127.0.0.1:<port>/` with key `apiKey`. */
export interface ListeningHarness {
  port: number;
  apiKey: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `antigravity-harness --listen 127.0.0.1:0` and waits for its "listening on" line. */
export async function startListeningHarness(options: { script: string; workspace: string; apiKey: string }): Promise<ListeningHarness> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", tsxLoader, harnessBin, "--listen", "127.0.0.1:0", "--api-key", options.apiKey, "--workspace", options.workspace], {
    cwd: repoRoot,
    env: harnessEnv(options.script),
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => {
    children.delete(child);
    resolve();
  }));
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the harness did not start listening within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`)), STARTUP_TIMEOUT_MS);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the harness exited (${String(code)}) before listening:\n${stderr}`));
    });
  });
  return {
    port,
    apiKey: options.apiKey,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * An executable that starts the harness from source with the given arguments: what a
 * subprocess transport spawns in place of `localharness`. Written to a fresh temp directory.
 */
export async function harnessExecutable(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "antigravity-e2e-"));
  const file = path.join(dir, "antigravity-harness");
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  await writeFile(file, `#!/bin/sh\nexec ${[process.execPath, "--conditions=source", "--import", tsxLoader, harnessBin].map(quote).join(" ")} "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

/** Kills every harness child still running. */
export async function killAllHarnesses(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve)))));
}
