import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubprocessTransport } from "./subprocess-transport.js";
import { OWNER_FILE } from "./temporary-storage.js";
import { fakePath, isAlive, waitUntilGone } from "./testing/process-probe.js";

// Issue 8 item 15: an SDK process that is SIGKILLed leaves its temporary storage directory; the
// next one that starts a harness removes it — and nothing else: not upstream's directories with
// the same prefix, not a live process's, nothing behind a symlink, no special file.

const parentScript = fileURLToPath(new URL("./testing/parent-process.mjs", import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const posix = process.platform !== "win32";

/** This process's start time, as the owner file records it. */
function ownStartTicks(): string {
  const stat = readFileSync(`/proc/${process.pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3] as string;
}

describe.runIf(posix)("stale temporary storage directories", () => {
  let root: string;
  let temp: string;
  const savedTmpdir = process.env["TMPDIR"];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "sdk-stale-"));
    temp = join(root, "tmp");
    await mkdir(temp);
    process.env["TMPDIR"] = temp;
  });
  afterAll(async () => {
    if (savedTmpdir === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = savedTmpdir;
    await rm(root, { recursive: true, force: true });
  });

  it("removes the directory of a SIGKILLed SDK process at the next start, and only provably stale ones", async () => {
    // A real SDK process starts a harness, then is SIGKILLed: its directory stays behind.
    const parent = spawn(process.execPath, ["--conditions=antigravity-source", "--import", tsx, parentScript, "wait"], {
      env: { ...process.env, TMPDIR: temp },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const harnessPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once("exit", (code) => reject(new Error(`the SDK process exited (${code}) before starting its harness`)));
    });
    const [left] = (await readdir(temp)).filter((name) => name.startsWith("antigravity_"));
    expect(left).toBeDefined();
    const leftPath = join(temp, left as string);
    const deadPid = parent.pid as number;
    parent.kill("SIGKILL");
    await new Promise((resolve) => parent.once("exit", resolve));
    if (!(await waitUntilGone(harnessPid))) process.kill(harnessPid, "SIGKILL");
    expect(existsSync(join(leftPath, OWNER_FILE))).toBe(true);

    // Neighbours that must survive, and two more that are stale.
    const dead = JSON.stringify({ pid: deadPid });
    const outside = join(root, "outside");
    await mkdir(outside);
    await writeFile(join(outside, "keep.txt"), "keep");
    await writeFile(join(outside, OWNER_FILE), dead);
    const dir = async (name: string, owner?: string, mode = 0o700): Promise<string> => {
      const path = join(temp, name);
      await mkdir(path);
      if (owner !== undefined) await writeFile(join(path, OWNER_FILE), owner);
      await chmod(path, mode);
      return path;
    };
    const upstream = await dir("antigravity_Upstrm");
    const alive = await dir("antigravity_Alive1", JSON.stringify({ pid: process.pid, startTicks: ownStartTicks() }));
    const reused = await dir("antigravity_Reused", JSON.stringify({ pid: process.pid, startTicks: "1" }));
    const wideOpen = await dir("antigravity_Open55", dead, 0o755);
    const linkedOwner = await dir("antigravity_LinkOw");
    await symlink(join(outside, OWNER_FILE), join(linkedOwner, OWNER_FILE));
    const fifoOwner = await dir("antigravity_Fifo01");
    execFileSync("mkfifo", [join(fifoOwner, OWNER_FILE)]);
    const withLinks = await dir("antigravity_Links1", dead);
    await symlink(join(outside, "keep.txt"), join(withLinks, "escape"));
    await symlink(outside, join(withLinks, "escape-dir"));
    await symlink(join(root, "missing"), join(withLinks, "dangling"));
    await symlink(outside, join(temp, "antigravity_Link01"));
    await symlink(join(root, "missing"), join(temp, "antigravity_Dangle"));
    const unrelated = await dir("unrelated_dir", dead);

    // The next SDK process (this one) starts a harness: the sweep runs in the background.
    const channel = await new SubprocessTransport({ harnessPath: fakePath("fake-harness.mjs") }).connect({
      timeoutMs: 20_000,
    });
    for (
      const deadline = Date.now() + 10_000;
      Date.now() < deadline && (existsSync(leftPath) || existsSync(reused) || existsSync(withLinks));
    )
      await sleep(20);
    expect(existsSync(leftPath)).toBe(false);
    expect(existsSync(reused)).toBe(false);
    expect(existsSync(withLinks)).toBe(false);
    for (const kept of [upstream, alive, wideOpen, linkedOwner, fifoOwner, unrelated, join(temp, "antigravity_Link01")])
      expect(existsSync(kept)).toBe(true);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("keep");
    expect(existsSync(join(outside, OWNER_FILE))).toBe(true);
    expect((await readdir(temp)).filter((name) => name.startsWith("antigravity_Dangle"))).toHaveLength(1);

    // Its own directory is live (owned by this process) and goes away with the channel.
    const own = channel.storageDirectory;
    expect(existsSync(join(own, OWNER_FILE))).toBe(true);
    await channel.close();
    expect(existsSync(own)).toBe(false);
    expect(isAlive(channel.pid)).toBe(false);
  });
});
