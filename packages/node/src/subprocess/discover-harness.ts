import { accessSync, constants, readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { HARNESS_PATH_HINT } from "./spawn-errors.js";

/** Environment variable naming the harness binary (protocol §2.2, antigravity-api §5). */
export const HARNESS_PATH_ENV = "ANTIGRAVITY_HARNESS_PATH";

/** Name of the upstream binary looked up on `PATH`. */
export const LOCALHARNESS_BINARY = process.platform === "win32" ? "localharness.exe" : "localharness";

/** Where a harness binary was found, in discovery order. */
export type HarnessSource = "option" | "agent-env" | "process-env" | "path" | "bundled";

/** The binary to spawn and why it was chosen. */
export interface HarnessBinary {
  /** Absolute path of the file to run. */
  path: string;
  source: HarnessSource;
  /** True when the file is JavaScript and must run under `process.execPath`. */
  isJavaScript: boolean;
}

/** Inputs of {@link discoverHarnessBinary}. */
export interface DiscoverHarnessOptions {
  /** Explicit path; wins over everything. */
  harnessPath?: string;
  /** The agent's env map (checked for `ANTIGRAVITY_HARNESS_PATH` before the process environment). */
  env?: Readonly<Record<string, string>>;
  /** The process environment to read `ANTIGRAVITY_HARNESS_PATH` and `PATH` from; defaults to `process.env`. */
  processEnv?: NodeJS.ProcessEnv;
  /** Set false to fail instead of falling back to the bundled reference harness. Default true. */
  allowBundled?: boolean;
}

/**
 * Finds the harness binary. Order (protocol §2.2, with the reference harness as last resort):
 * 1. `options.harnessPath`;
 * 2. `ANTIGRAVITY_HARNESS_PATH` in the agent's env map, then in the process environment;
 * 3. `localharness` on `PATH`;
 * 4. the bundled reference harness, `antigravity-harness` from `@antigravity-ts/harness`
 *    (offline, scripted model unless configured otherwise).
 *
 * An explicit path (1, 2) is returned even when the file is missing, so the spawn reports
 * "harness binary not found at X" for the path the user gave instead of silently falling back.
 *
 * @example
 * const { path, source } = discoverHarnessBinary({ env: { ANTIGRAVITY_HARNESS_PATH: "/opt/localharness" } });
 */
export function discoverHarnessBinary(options: DiscoverHarnessOptions = {}): HarnessBinary {
  const processEnv = options.processEnv ?? process.env;
  const explicit: [string | undefined, HarnessSource][] = [
    [options.harnessPath, "option"],
    [options.env?.[HARNESS_PATH_ENV], "agent-env"],
    [processEnv[HARNESS_PATH_ENV], "process-env"],
  ];
  for (const [candidate, source] of explicit) {
    if (candidate !== undefined && candidate !== "") return binary(resolve(candidate), source);
  }
  const onPath = findOnPath(LOCALHARNESS_BINARY, processEnv.PATH ?? processEnv.Path ?? "");
  if (onPath !== undefined) return binary(onPath, "path");
  if (options.allowBundled !== false) {
    const bundled = findBundledHarness();
    if (bundled !== undefined) return binary(bundled, "bundled");
  }
  throw new SdkError(
    ErrorCode.FailedPrecondition, // configuration, not a passing failure: never retryable
    `no harness binary found: install @antigravity-ts/harness (the reference harness, an optional peer dependency of @antigravity-ts/node), ${HARNESS_PATH_HINT}, or put localharness on PATH`,
  );
}

/**
 * Path of the bundled reference harness entry (`@antigravity-ts/harness` `bin`), or `undefined`
 * when the package is not installed or not built. Resolved through the `node_modules` lookup
 * rather than the package's `exports`, which expose no bin.
 */
export function findBundledHarness(): string | undefined {
  const require = createRequire(import.meta.url);
  const lookup = require.resolve.paths("@antigravity-ts/harness") ?? [];
  for (const modulesDir of lookup) {
    const packageJson = join(modulesDir, "@antigravity-ts", "harness", "package.json");
    const entry = binEntry(packageJson);
    if (entry !== undefined && isFile(entry)) return realpathSync(entry);
  }
  return undefined;
}

function binEntry(packageJsonPath: string): string | undefined {
  let manifest: { bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(packageJsonPath, "utf8")) as typeof manifest;
  } catch {
    return undefined;
  }
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.["antigravity-harness"];
  return bin === undefined ? undefined : join(dirname(packageJsonPath), bin);
}

function findOnPath(name: string, pathVariable: string): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function binary(path: string, source: HarnessSource): HarnessBinary {
  return { path, source, isJavaScript: /\.[cm]?js$/i.test(path) };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  if (!isFile(path)) return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
