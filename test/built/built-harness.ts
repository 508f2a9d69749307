import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The reference harness as users get it: packages/harness/dist/bin.js (run `npm run build` first),
// as a listen-mode server or as the executable a SubprocessTransport spawns.

const root = join(import.meta.dirname, "../..");
const harnessBin = join(root, "packages/harness/dist/bin.js");
const children = new Set<ChildProcess>();

/** A built harness serving `ws://127.0.0.1:<port>/`. */
export interface BuiltListeningHarness {
  port: number;
  apiKey: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `node packages/harness/dist/bin.js --listen 127.0.0.1:0` and waits for its listening line. */
export async function startBuiltListeningHarness(options: { env: Record<string, string>; workspace: string; apiKey: string }): Promise<BuiltListeningHarness> {
  const child = spawn(process.execPath, [harnessBin, "--listen", "127.0.0.1:0", "--api-key", options.apiKey, "--workspace", options.workspace], {
    cwd: root,
    env: options.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      children.delete(child);
      resolve();
    }),
  );
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the built harness did not start listening in time:\n${stderr}`)), 20_000);
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
      reject(new Error(`the built harness exited (${String(code)}) before listening:\n${stderr}`));
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

/** An executable running the built harness with its arguments, for SubprocessTransport's harnessPath. */
export async function builtHarnessExecutable(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "antigravity-built-"));
  const file = join(dir, "antigravity-harness");
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  await writeFile(file, `#!/bin/sh\nexec ${[process.execPath, harnessBin].map(quote).join(" ")} "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

/** Kills every built-harness child still running. */
export async function killBuiltHarnesses(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve)))));
}
