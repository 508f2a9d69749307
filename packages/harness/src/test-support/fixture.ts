import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  killAllHarnesses,
  startListeningHarness,
  type HarnessBuild,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";
import { TestClient, harnessConfig, type Frame } from "./ws-client.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

// The shared setup of the end-to-end suites: a temporary root with a workspace, a script for the
// scripted model, and a listen-mode harness subprocess, all torn down after the suite.

/** Options of {@link useHarnessFixture}. */
export interface FixtureOptions {
  /** Prefix of the temporary directory. */
  name: string;
  /** Script of the scripted model (`<root>/script.json`, passed as `--script`); the demo model when absent. */
  script?: unknown;
  /** More harness arguments, given the root (e.g. `--storage`). */
  args?: (root: string) => string[];
  /** Extra Node options of the harness process (e.g. a preloaded module). */
  nodeArgs?: readonly string[];
  /** Which harness runs: the sources (default) or the built `dist/bin.cjs`. */
  build?: HarnessBuild;
  /** `HarnessConfig` fields every {@link HarnessFixture.connect} sends. */
  config?: Frame;
  /** Creates files before the harness starts. */
  prepare?: (root: string, workspace: string) => Promise<void>;
}

/** What {@link useHarnessFixture} sets up; usable from `beforeAll` on. */
export interface HarnessFixture {
  /** The temporary directory. */
  readonly root: string;
  /** `<root>/ws`, the workspace of the sessions. */
  readonly workspace: string;
  /** The harness started for the suite (replaced by {@link restart}). */
  readonly harness: ListeningHarness;
  /** Starts another harness with the fixture's arguments plus `args`; killed after the suite. */
  start(args?: readonly string[]): Promise<ListeningHarness>;
  /** Stops the harness with SIGTERM and starts a new one; returns the old one's exit. */
  restart(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** A client connected to the harness, not initialised. */
  open(): Promise<TestClient>;
  /** A client connected and initialised with `harnessConfig(workspace, {...config, ...extra})`. */
  connect(extra?: Frame): Promise<TestClient>;
}

/** Registers `beforeAll`/`afterAll` that set up and tear down one harness for the suite. */
export function useHarnessFixture(options: FixtureOptions): HarnessFixture {
  let root: string | undefined;
  let harness: ListeningHarness | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the harness fixture is used before its beforeAll ran");
    return value;
  };
  const baseArgs = (): string[] => [
    ...(options.script === undefined ? [] : ["--script", path.join(ready(root), "script.json")]),
    ...(options.args?.(ready(root)) ?? []),
  ];
  const fixture: HarnessFixture = {
    get root() {
      return ready(root);
    },
    get workspace() {
      return path.join(ready(root), "ws");
    },
    get harness() {
      return ready(harness);
    },
    start: (args = []) =>
      startListeningHarness({
        args: [...baseArgs(), ...args],
        ...definedProperties({ nodeArgs: options.nodeArgs, build: options.build }),
      }),
    async restart() {
      const exit = await ready(harness).stop();
      harness = await fixture.start();
      return exit;
    },
    open: () => TestClient.connect(fixture.harness.port, fixture.harness.apiKey),
    async connect(extra = {}) {
      const client = await fixture.open();
      await client.init(harnessConfig(fixture.workspace, { ...options.config, ...extra }));
      return client;
    },
  };
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), `harness-${options.name}-`));
    await mkdir(fixture.workspace);
    if (options.script !== undefined) await writeFile(path.join(root, "script.json"), JSON.stringify(options.script));
    await options.prepare?.(root, fixture.workspace);
    harness = await fixture.start();
  });
  afterAll(async () => {
    await killAllHarnesses();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });
  return fixture;
}
