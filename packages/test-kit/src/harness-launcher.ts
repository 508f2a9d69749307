import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The one launcher of the reference harness in tests: as a real child process, either from its
// TypeScript sources (`node --conditions=antigravity-source --import tsx packages/harness/src/bin.ts`) or as
// users get it (`node packages/harness/dist/bin.js`, after `npm run build`). Every child is
// tracked so a suite can kill what is left (killAllHarnesses).

const require = createRequire(import.meta.url);
const harnessDir = path.dirname(require.resolve("@antigravity-ts/harness/package.json"));
const children = new Set<ChildProcessWithoutNullStreams>();

/** Safety bound of every wait here; a failing test fails with the harness's stderr. */
export const WAIT_MS = 30_000;

/** Which harness runs: the TypeScript sources through tsx, or the rollup output in dist. */
export type HarnessBuild = "source" | "dist";

/** How a harness process ended. */
export interface HarnessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The node arguments that run the harness `build`, the script last. */
function harnessArgs(build: HarnessBuild): string[] {
  if (build === "dist") return [path.join(harnessDir, "dist/bin.cjs")];
  return [
    "--conditions=antigravity-source",
    "--import",
    pathToFileURL(require.resolve("tsx")).href,
    path.join(harnessDir, "src/bin.ts"),
  ];
}

/**
 * The environment of a scripted harness: this process's environment without model credentials
 * or harness settings (`GEMINI_*`, `OPENAI_*`, `ANTIGRAVITY_*`, `GOOGLE_*`), the scripted model
 * forced, its script `script` (a path) when given, then `extra`.
 */
export function harnessEnv(script?: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(GEMINI_|OPENAI_|ANTIGRAVITY_|GOOGLE_)/.test(key)) env[key] = value;
  }
  return {
    ...env,
    ANTIGRAVITY_MODEL_PROVIDER: "scripted",
    ...(script === undefined ? {} : { ANTIGRAVITY_SCRIPT: script }),
    ...extra,
  };
}

/** A running harness process. */
export interface HarnessProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** OS process id (fault tests kill it). */
  readonly pid: number;
  readonly exited: Promise<HarnessExit>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the match once stderr contains `text`; rejects if the process exits first or after {@link WAIT_MS}. */
  waitForStderr(text: string | RegExp): Promise<string>;
}

/** Options of {@link spawnHarness}. */
export interface SpawnHarnessOptions {
  /** Default {@link harnessEnv}(). */
  env?: Record<string, string> | undefined;
  /** Default the harness package's folder. */
  cwd?: string | undefined;
  /** Node options before the script, e.g. `["--import", url]` to preload a module. */
  nodeArgs?: readonly string[] | undefined;
  /** Default `"source"`. */
  build?: HarnessBuild | undefined;
}

/** Spawns `antigravity-harness` with `args` (stdio mode when there is no `--listen`). */
export function spawnHarness(args: readonly string[], options: SpawnHarnessOptions = {}): HarnessProcess {
  const node = harnessArgs(options.build ?? "source");
  const script = node.pop() as string;
  const child = spawn(process.execPath, [...node, ...(options.nodeArgs ?? []), script, ...args], {
    cwd: options.cwd ?? harnessDir,
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
  const exited = new Promise<HarnessExit>((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  const waitForStderr = (text: string | RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`timed out waiting for ${String(text)} on stderr:\n${stderr}`)),
        WAIT_MS,
      );
      const check = (): void => {
        const match =
          typeof text === "string" ? (stderr.includes(text) ? text : null) : (text.exec(stderr)?.[0] ?? null);
        if (match !== null) done(undefined, match);
        else if (child.exitCode !== null || child.signalCode !== null)
          done(
            new Error(
              `harness exited (${child.exitCode ?? child.signalCode}) before printing ${String(text)}:\n${stderr}`,
            ),
          );
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
  return { child, pid: child.pid ?? -1, exited, stderr: () => stderr, waitForStderr };
}

/** A harness serving `ws://127.0.0.1:<port>/` with key `apiKey`. */
export interface ListeningHarness extends HarnessProcess {
  readonly port: number;
  /** `ws://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly apiKey: string;
  /** Sends SIGTERM (unless it already ended) and waits for the exit. */
  stop(): Promise<HarnessExit>;
}

/** Options of {@link startListeningHarness}. */
export interface ListeningHarnessOptions extends Omit<SpawnHarnessOptions, "cwd"> {
  /** Default `test-key-0123456789`. */
  apiKey?: string | undefined;
  /** `--workspace`; default the harness's own default (its working folder). */
  workspace?: string | undefined;
  /** More harness arguments. */
  args?: readonly string[] | undefined;
  /** Pass the key as `--api-key-file FILE`: `apiKey` is written to this path (mode 0600) and kept out of the environment. */
  apiKeyFile?: string | undefined;
}

/** Starts `antigravity-harness --listen 127.0.0.1:0` and waits for its "listening on ws://…" line. */
export async function startListeningHarness(options: ListeningHarnessOptions = {}): Promise<ListeningHarness> {
  const apiKey = options.apiKey ?? "test-key-0123456789";
  const workspace = options.workspace === undefined ? [] : ["--workspace", options.workspace];
  // The key travels in the environment or a file, never on the command line where `ps` would show it.
  const env = { ...(options.env ?? harnessEnv()) };
  let keyArgs: string[] = [];
  if (options.apiKeyFile === undefined) env["ANTIGRAVITY_API_KEY"] = apiKey;
  else {
    delete env["ANTIGRAVITY_API_KEY"];
    await writeFile(options.apiKeyFile, `${apiKey}\n`, { mode: 0o600 });
    keyArgs = ["--api-key-file", options.apiKeyFile];
  }
  const harness = spawnHarness(["--listen", "127.0.0.1:0", ...workspace, ...keyArgs, ...(options.args ?? [])], {
    env,
    nodeArgs: options.nodeArgs,
    build: options.build,
  });
  const line = await harness.waitForStderr(/listening on ws:\/\/127\.0\.0\.1:\d+\//);
  const port = Number(/:(\d+)\/$/.exec(line)?.[1]);
  return {
    ...harness,
    port,
    url: `ws://127.0.0.1:${port}/`,
    apiKey,
    async stop() {
      if (harness.child.exitCode === null && harness.child.signalCode === null) harness.child.kill("SIGTERM");
      return harness.exited;
    },
  };
}

/**
 * An executable that starts the harness `build` with the given arguments: what a subprocess
 * transport spawns in place of `localharness`. Written to a fresh temp directory. `preload`
 * modules are imported into the harness before it starts (`--import`; a source build loads tsx
 * first, so they may be TypeScript), e.g. to inject faults.
 */
export async function harnessExecutable(
  build: HarnessBuild = "source",
  preload: readonly string[] = [],
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "antigravity-e2e-"));
  const file = path.join(dir, "antigravity-harness");
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  const args = harnessArgs(build);
  const script = args.pop() as string;
  const command = [
    process.execPath,
    ...args,
    ...preload.flatMap((module) => ["--import", pathToFileURL(module).href]),
    script,
  ];
  await writeFile(file, `#!/bin/sh\nexec ${command.map(quote).join(" ")} "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

/** Kills every harness child still running (afterAll). */
export async function killAllHarnesses(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(
    running.map(
      (child) =>
        new Promise((resolve) =>
          child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once("exit", resolve),
        ),
    ),
  );
}
