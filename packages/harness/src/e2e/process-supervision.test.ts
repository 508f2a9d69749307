import { randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  WAIT_MS,
  harnessEnv,
  killAllHarnesses,
  startListeningHarness,
  type ListeningHarness,
} from "@antigravity-ts/test-kit";
import { TestClient, finalSteps, harnessConfig } from "../test-support/ws-client.js";

// Issue 8 item 6: nothing a command starts outlives it — not `setsid`, `setsid -f`, double forks,
// `nohup`, a new process group or a cleared environment — at command end, on halt, on
// disconnect, at shutdown, and when the harness itself is SIGKILLed (its watchdog cleans up).
// Run three times: in a PID namespace per command (the default where the machine allows it),
// with a cgroup per command only, and with the /proc sweep only.
// Every sleeper carries a unique marker (its duration) so the suite can find and sweep its own.

const SUITE = String(randomInt(100_000, 999_999));
let counter = 0;
/** A sleep duration no other process uses: `<n>.<suite>` seconds. */
const marker = (): string => `${3000 + ++counter}.${SUITE}`;

const SCRIPT = {
  turns: [
    {
      regex: "^run ([\\s\\S]*)$",
      calls: [{ toolCalls: [{ name: "run_command", args: { CommandLine: "{{match.1}}" } }] }, { text: "done" }],
    },
  ],
};
/** Base code hangs until the command's time limit while a background job holds its pipe: keep that short. */
const CONFIG = { harnessSideTools: { runCommand: { enabled: true, maxTimeoutMs: 8000, enableDaemonCommands: false } } };

/** Live (non-zombie) processes whose command line contains `text`. */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "latin1").catch(() => "");
    if (!cmdline.replaceAll("\0", " ").includes(text)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "latin1").catch(() => "");
    if (stat !== "" && !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) pids.push(Number(entry));
  }
  return pids;
}

/** Live processes that are exactly `sleep <m>` (not the shells whose scripts mention it). */
async function sleepers(m: string): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await processesWith(m))
    if ((await readFile(`/proc/${pid}/cmdline`, "latin1").catch(() => "")) === `sleep\0${m}\0`) pids.push(pid);
  return pids;
}

/** Reads `read()` every 50 ms until `done` accepts it or WAIT_MS passes; returns the last reading. */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(50)) {
    const value = await read();
    if (done(value)) return value;
  }
  return read();
}

/**
 * Polls (bounded) until `count` sleepers with marker `m` run: "started" can be printed before a
 * backgrounded `setsid sleep` has exec'd sleep (its command line still reads setsid), so one
 * immediate look may count one short on a busy machine.
 */
function untilSleepers(m: string, count: number): Promise<number[]> {
  return pollUntil(
    () => sleepers(m),
    (found) => found.length >= count,
  );
}

/** Polls (bounded) until no process has `text` in its command line; returns what is left. */
function untilNoneWith(text: string): Promise<number[]> {
  return pollUntil(
    () => processesWith(text),
    (found) => found.length === 0,
  );
}

const linux = process.platform === "linux";
const haveTools =
  ["/usr/bin/setsid", "/usr/bin/nohup"].every(existsSync) || ["/bin/setsid", "/bin/nohup"].every(existsSync);

describe.runIf(linux && haveTools)("run_command leaves nothing behind", () => {
  let root: string;
  let workspace: string;
  let scriptFile: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "harness-supervision-"));
    workspace = path.join(root, "ws");
    scriptFile = path.join(root, "script.json");
    await mkdir(workspace);
    await writeFile(scriptFile, JSON.stringify(SCRIPT));
  });
  afterAll(async () => {
    await killAllHarnesses();
    // Whatever a failing case left behind.
    for (const pid of await processesWith(`.${SUITE}`)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await rm(root, { recursive: true, force: true });
  });

  const modes = [
    { name: "in a PID namespace and a cgroup per command where possible", namespaces: true, cgroups: true },
    {
      name: "with a cgroup per command where possible (ANTIGRAVITY_HARNESS_NAMESPACES=0)",
      namespaces: false,
      cgroups: true,
    },
    {
      name: "with the /proc sweep only (ANTIGRAVITY_HARNESS_NAMESPACES=0, ANTIGRAVITY_HARNESS_CGROUPS=0)",
      namespaces: false,
      cgroups: false,
    },
  ];
  for (const { name: mode, namespaces, cgroups } of modes) {
    describe(mode, () => {
      let harness: ListeningHarness;
      /** Whether this harness really contains commands in cgroups (root, or a delegated subtree). */
      let inCgroup = false;
      /** Whether this harness really runs commands in PID namespaces (unshare allowed here). */
      let inNamespace = false;
      const start = async (): Promise<ListeningHarness> => {
        const env = {
          ...(cgroups ? {} : { ANTIGRAVITY_HARNESS_CGROUPS: "0" }),
          ...(namespaces ? {} : { ANTIGRAVITY_HARNESS_NAMESPACES: "0" }),
        };
        return startListeningHarness({ args: ["--script", scriptFile], env: harnessEnv(undefined, env) });
      };
      const connect = async (target = harness): Promise<TestClient> => {
        const client = await TestClient.connect(target.port, target.apiKey);
        await client.init(harnessConfig(workspace, CONFIG));
        return client;
      };
      /** Runs `command` to its end and returns its step. */
      const run = async (command: string): Promise<Record<string, unknown>> => {
        const client = await connect();
        client.prompt(`run ${command}`);
        const step = finalSteps(await client.turn()).find((s) => s["runCommand"] !== undefined) as Record<
          string,
          unknown
        >;
        client.close();
        return step;
      };
      /** Starts `command` (which prints "started" once its background jobs run) and waits for that. */
      const begin = async (command: string, target = harness): Promise<TestClient> => {
        const client = await connect(target);
        client.prompt(`run ${command}`);
        await client.next(
          (f) => (f["stepUpdate"]?.runCommand?.combinedOutput ?? "").includes("started"),
          "the command's first output",
        );
        return client;
      };

      beforeAll(async () => {
        harness = await start();
        await run("true");
        inCgroup = / in cgroup /.test(harness.stderr());
        inNamespace = /each in a PID namespace of its own/.test(harness.stderr());
        if (!namespaces) expect(harness.stderr()).not.toContain("PID namespace of its own");
        if (!cgroups) expect(harness.stderr()).toContain("by /proc sweep (no writable cgroup v2)");
      });

      const detached: [string, (m: string) => string][] = [
        ["setsid sleep &", (m) => `setsid sleep ${m} & echo ok`],
        ["setsid -f", (m) => `setsid -f sleep ${m}; echo ok`],
        ["a double fork", (m) => `(sh -c "sleep ${m} &" &); echo ok`],
        ["nohup, output redirected", (m) => `nohup sleep ${m} >/dev/null 2>&1 & echo ok`],
        [
          "a new process group",
          (m) => `perl -e 'setpgrp(0, 0); exec "sleep", "${m}"' </dev/null >/dev/null 2>&1 & echo ok`,
        ],
        [
          "a session that ignores SIGTERM and SIGHUP",
          (m) => `setsid sh -c 'trap "" TERM HUP; sleep ${m}; :' >/dev/null 2>&1 & echo ok`,
        ],
      ];
      for (const [name, command] of detached) {
        it(`kills ${name} before the command's result returns`, async () => {
          const m = marker();
          const step = await run(command(m));
          expect(step).toMatchObject({ state: "STATE_DONE", runCommand: { combinedOutput: "ok\n" } });
          expect(await processesWith(m)).toEqual([]);
        });
      }

      it("kills a job that cleared its environment, started a session and was reparented (cgroup only)", async (context) => {
        if (!inCgroup) context.skip();
        const m = marker();
        const step = await run(`env -i setsid -f sleep ${m}; echo ok`);
        expect(step).toMatchObject({ state: "STATE_DONE" });
        expect(await processesWith(m)).toEqual([]);
      });

      // The attack run's escape: as root, a job moves itself into a cgroup of its own making.
      // Leaving the session, the tag and the cgroup is not enough in a PID namespace.
      const escapeCommand = (m: string, cgroup: string): string =>
        `mkdir -p ${cgroup}; env -i /usr/bin/setsid -f sh -c "echo \\$\\$ > ${cgroup}/cgroup.procs; exec sleep ${m}" </dev/null >/dev/null 2>&1`;

      it("kills a job that moved itself to another cgroup, left its session and cleared its environment (PID namespace)", async (context) => {
        const cgroup = await writableCgroup();
        if (!inNamespace || cgroup === undefined) context.skip();
        const m = marker();
        try {
          const step = await run(`${escapeCommand(m, `${cgroup}/escape-${m}`)}; echo ok`);
          expect(step).toMatchObject({ state: "STATE_DONE", runCommand: { combinedOutput: "ok\n" } });
          expect(await untilNoneWith(m)).toEqual([]);
        } finally {
          await rmCgroup(`${cgroup}/escape-${m}`);
        }
      });

      it("kills such a job when the harness is SIGTERMed, or SIGKILLed after its watchdog (PID namespace)", async (context) => {
        const cgroup = await writableCgroup();
        if (!inNamespace || cgroup === undefined) context.skip();
        for (const ending of ["SIGTERM", "SIGKILL"] as const) {
          const own = await start();
          const [escaped, foreground] = [marker(), marker()];
          try {
            await begin(
              `${escapeCommand(escaped, `${cgroup}/escape-${escaped}`)}; echo started; sleep ${foreground}`,
              own,
            );
            expect(await untilSleepers(escaped, 1)).toHaveLength(1);
            if (ending === "SIGKILL") process.kill(await untilWatchdog(own), "SIGKILL");
            own.child.kill(ending);
            await own.exited;
            expect(await untilNoneWith(escaped)).toEqual([]);
            expect(await untilNoneWith(foreground)).toEqual([]);
          } finally {
            await rmCgroup(`${cgroup}/escape-${escaped}`);
          }
        }
      });

      it("kills a long command and its detached jobs on halt", async () => {
        const [background, foreground] = [marker(), marker()];
        const client = await begin(
          `setsid sleep ${background} & setsid -f sleep ${background}; echo started; sleep ${foreground}`,
        );
        expect(await untilSleepers(background, 2)).toHaveLength(2);
        client.send({ haltRequest: true });
        await client.turn();
        expect(await untilNoneWith(background)).toEqual([]);
        expect(await untilNoneWith(foreground)).toEqual([]);
        client.close();
      });

      it("kills them when the client disconnects", async () => {
        const [background, foreground] = [marker(), marker()];
        const client = await begin(`setsid sleep ${background} & echo started; sleep ${foreground}`);
        client.socket.terminate();
        expect(await untilNoneWith(background)).toEqual([]);
        expect(await untilNoneWith(foreground)).toEqual([]);
      });

      it("kills them at shutdown (SIGTERM), and the watchdog exits too", async () => {
        const own = await start();
        const [background, foreground] = [marker(), marker()];
        await begin(`setsid -f sleep ${background}; echo started; sleep ${foreground}`, own);
        const watchdog = await untilWatchdog(own);
        expect(await own.stop()).toEqual({ code: 0, signal: null });
        expect(await processesWith(background)).toEqual([]);
        expect(await untilNoneWith(foreground)).toEqual([]);
        expect(await untilNoneWith(`command-watchdog.ts ${own.child.pid} `)).toEqual([]);
        expect(watchdog).toBeGreaterThan(0);
      });

      it("kills the whole tree of a running command when the harness is SIGKILLed", async () => {
        const own = await start();
        const [background, forked, foreground] = [marker(), marker(), marker()];
        await begin(
          `setsid sleep ${background} & setsid -f sleep ${forked}; (sh -c "sleep ${forked} &" &); echo started; sleep ${foreground}`,
          own,
        );
        await untilWatchdog(own);
        expect(await untilSleepers(forked, 2)).toHaveLength(2);
        own.child.kill("SIGKILL");
        await own.exited;
        expect(await untilNoneWith(background)).toEqual([]);
        expect(await untilNoneWith(forked)).toEqual([]);
        expect(await untilNoneWith(foreground)).toEqual([]);
        expect(await untilNoneWith(`command-watchdog.ts ${own.child.pid} `)).toEqual([]);
        if (inCgroup) expect(await leftoverCgroups(own.child.pid as number)).toEqual([]);
      });
    });
  }
});

/** A cgroup v2 directory this process may create cgroups in (root), or undefined. */
async function writableCgroup(): Promise<string | undefined> {
  for (const mount of (await readFile("/proc/self/mountinfo", "utf8"))
    .split("\n")
    .filter((l) => l.includes(" - cgroup2 "))) {
    const point = mount.split(" ")[4] as string;
    const probe = path.join(point, `antigravity-probe-${SUITE}`);
    try {
      await mkdir(probe);
      await rmdir(probe);
      return point;
    } catch {
      // not writable here
    }
  }
  return undefined;
}

/** Removes an (emptied) cgroup a test made; a cgroup directory is removed with rmdir. */
async function rmCgroup(directory: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      await rmdir(directory);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      await sleep(50);
    }
  }
}

/** Waits (bounded) for the harness's watchdog process; returns its pid. */
async function untilWatchdog(harness: ListeningHarness): Promise<number> {
  const [pid] = await pollUntil(
    () => processesWith(`command-watchdog.ts ${harness.child.pid} `),
    (found) => found.length > 0,
  );
  if (pid === undefined) throw new Error(`no watchdog for harness ${harness.child.pid}:\n${harness.stderr()}`);
  return pid;
}

/** cgroups a dead harness left (found through the log line of the harness's own cgroup mount). */
async function leftoverCgroups(pid: number): Promise<string[]> {
  const mounts = (await readFile("/proc/self/mountinfo", "utf8")).split("\n").filter((l) => l.includes(" - cgroup2 "));
  const found: string[] = [];
  for (const mount of mounts) {
    const point = mount.split(" ")[4] as string;
    for (let attempt = 0; attempt < WAIT_MS / 50; attempt++) {
      const left = (await readdir(point).catch(() => [])).filter((name) =>
        name.startsWith(`antigravity-harness-${pid}-`),
      );
      if (left.length === 0) break;
      if (attempt === WAIT_MS / 50 - 1) found.push(...left);
      await sleep(50);
    }
  }
  return found;
}
