import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Runs the reference harness as a listen-mode server or as an executable for transports that
// spawn the harness themselves, either from its TypeScript sources (`node --conditions=source
// --import tsx packages/harness/src/bin.ts`) or as users get it (`node packages/harness/dist/bin.js`,
// after `npm run build`). Every child is tracked so the suite can kill it.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const children = new Set<ChildProcess>();
const STARTUP_TIMEOUT_MS = 30_000;

/** Which harness runs: the TypeScript sources through tsx, or the rollup output in dist. */
export type HarnessBuild = "source" | "dist";

/** The node arguments that run the harness `build`. */
function harnessArgs(build: HarnessBuild): string[] {
  if (build === "dist") return [path.join(repoRoot, "packages/harness/dist/bin.js")];
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return ["--conditions=source", "--import", tsxLoader, path.join(repoRoot, "packages/harness/src/bin.ts")];
}

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
  /** OS process id of the harness (fault tests kill it). */
  pid: number;
  port: number;
  apiKey: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Options of {@link startListeningHarness}. */
export interface ListeningHarnessOptions {
  /** The harness's environment, e.g. {@link harnessEnv}. */
  env: Record<string, string>;
  workspace: string;
  apiKey: string;
  /** Default `"source"`. */
  build?: HarnessBuild;
}

/** Starts `antigravity-harness --listen 127.0.0.1:0` and waits for its "listening on" line. */
export async function startListeningHarness(options: ListeningHarnessOptions): Promise<ListeningHarness> {
  // The key travels in the environment, not on the command line where `ps` would show it.
  const child = spawn(process.execPath, [...harnessArgs(options.build ?? "source"), "--listen", "127.0.0.1:0", "--workspace", options.workspace], {
    cwd: repoRoot,
    env: { ...options.env, ANTIGRAVITY_API_KEY: options.apiKey },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => {
    children.delete(child);
    resolve();
  }));
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the harness did not start listening within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`)), STARTUP_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
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
    pid: child.pid ?? -1,
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
 * An executable that starts the harness `build` with the given arguments: what a subprocess
 * transport spawns in place of `localharness`. Written to a fresh temp directory. `preload`
 * modules are imported into the harness before it starts (`--import`; a source build loads tsx
 * first, so they may be TypeScript), e.g. to inject faults.
 */
export async function harnessExecutable(build: HarnessBuild = "source", preload: readonly string[] = []): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "antigravity-e2e-"));
  const file = path.join(dir, "antigravity-harness");
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  const args = harnessArgs(build);
  const script = args.pop() ?? "";
  const command = [process.execPath, ...args, ...preload.flatMap((module) => ["--import", pathToFileURL(module).href]), script];
  await writeFile(file, `#!/bin/sh\nexec ${command.map(quote).join(" ")} "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

/** Kills every harness child still running. */
export async function killAllHarnesses(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve)))));
}
