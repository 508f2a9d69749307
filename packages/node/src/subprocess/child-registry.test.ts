import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { fakePath, isAlive, waitUntilGone } from "./testing/process-probe.js";

// Real parent processes that start a harness and then die badly: the harness must not survive.
const tsxLoader = createRequire(import.meta.url).resolve("tsx");
const parents: ChildProcess[] = [];
const harnessPids: number[] = [];

afterEach(() => {
  for (const parent of parents.splice(0)) parent.kill("SIGKILL");
  for (const pid of harnessPids.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

/** Starts `parent-process.mjs <mode>` and resolves with the harness pid it prints. */
async function startParent(mode: "throw" | "wait"): Promise<{
  parent: ChildProcess;
  harnessPid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}> {
  const parent = spawn(
    process.execPath,
    ["--conditions=antigravity-source", "--import", tsxLoader, fakePath("parent-process.mjs"), mode],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  parents.push(parent);
  let stderr = "";
  parent.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    parent.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const harnessPid = await new Promise<number>((resolve, reject) => {
    let out = "";
    parent.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(Number(line));
    });
    void exited.then(() => reject(new Error(`parent exited before printing the harness pid: ${stderr}`)));
  });
  harnessPids.push(harnessPid);
  return { parent, harnessPid, exited, stderr: () => stderr };
}

describe("no orphan harness", () => {
  it("kills the harness when the parent dies of an uncaught exception", async () => {
    const { harnessPid, exited, stderr } = await startParent("throw");
    const exit = await exited;
    expect(exit.code).toBe(1);
    expect(stderr()).toContain("parent failed on purpose");
    expect(await waitUntilGone(harnessPid)).toBe(true);
  });

  it("kills the harness and still dies of the signal when the parent gets SIGTERM", async () => {
    const { parent, harnessPid, exited } = await startParent("wait");
    expect(isAlive(harnessPid)).toBe(true);
    parent.kill("SIGTERM");
    expect(await exited).toEqual({ code: null, signal: "SIGTERM" });
    expect(await waitUntilGone(harnessPid)).toBe(true);
  });

  it("kills the harness and still dies of the signal when the parent gets SIGINT", async () => {
    const { parent, harnessPid, exited } = await startParent("wait");
    parent.kill("SIGINT");
    expect(await exited).toEqual({ code: null, signal: "SIGINT" });
    expect(await waitUntilGone(harnessPid)).toBe(true);
  });
});
