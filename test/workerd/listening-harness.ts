import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");

/** A built reference harness in `--listen` mode, as a real child process. */
export interface ListeningHarness {
  /** `ws://127.0.0.1:PORT/` as the harness printed it. */
  readonly url: string;
  /** The key the harness demands in `x-goog-api-key`. */
  readonly apiKey: string;
  readonly child: ChildProcess;
  /** Everything the harness wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** Kills the harness and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `node packages/harness/dist/bin.js --listen 127.0.0.1:0 --api-key <random>` and resolves
 * once it prints `listening on ws://HOST:PORT/` to stderr. Rejects (and kills the child) if it
 * exits first or does not get there within `timeoutMs`.
 */
export async function startListeningHarness(options: { timeoutMs?: number; args?: readonly string[]; env?: NodeJS.ProcessEnv } = {}): Promise<ListeningHarness> {
  const apiKey = `key-${randomUUID()}`;
  const child = spawn(process.execPath, [join(root, "packages/harness/dist/bin.js"), "--listen", "127.0.0.1:0", "--api-key", apiKey, ...(options.args ?? [])], {
    cwd: root,
    env: options.env ?? process.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const fail = (message: string): void => {
      clearTimeout(timer);
      void stop().finally(() => reject(new Error(`${message}\nharness stderr:\n${stderr}`)));
    };
    const timer = setTimeout(() => fail("the harness did not print its listening line in time"), options.timeoutMs ?? 15_000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on (ws:\/\/\S+)/.exec(stderr);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("error", (error) => fail(`could not start the harness: ${error.message}`));
    child.once("exit", (code, signal) => fail(`the harness exited (${signal ?? code}) before listening`));
  });
  return { url, apiKey, child, stderr: () => stderr, stop };
}
