import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, type Frame } from "../test-support/ws-client.js";

// Issue 8 item 4 through the real harness: while another process keeps swapping workspace
// directories for symlinks to an outside directory, the scripted model reads, creates, edits,
// searches and lists through them many times. What was opened is checked, not the path before
// opening: not one read or write may reach the outside directory.

const OUTSIDE_TEXT = "OUTSIDE-CONTENT";
const OUTSIDE_NAME = "only-outside-name.txt";
/** Model calls per prompt, and prompts: each prompt's turn stays well inside the wait bound. */
const CALLS_PER_TURN = 15;
const TURNS = 5;

/** Outside, `f.txt` has three lines and inside one: a view step's `endLine` tells where it read. */
const OUTSIDE_F = `${OUTSIDE_TEXT}\nline 2\nline 3`;
const raceCall = (i: number): Frame => ({
  toolCalls: [
    ...[0, 1, 2, 3].flatMap((k) => [
      { name: "view_file", args: { file_path: "d/f.txt" } },
      { name: "create_file", args: { file_path: `d/new-{{match.1}}-${i}-${k}.txt`, contents: "x" } },
    ]),
    { name: "edit_file", args: { file_path: "d/e.txt", old_string: "END", new_string: "+END" } },
    { name: "search_directory", args: { directory_path: "s", query: OUTSIDE_TEXT } },
    { name: "find_file", args: { directory_path: "s", pattern: "only-outside-*" } },
  ],
});
const SCRIPT = {
  turns: [
    {
      regex: "^race (\\d+)$",
      calls: [...Array.from({ length: CALLS_PER_TURN }, (_, i) => raceCall(i)), { text: "done" }],
    },
  ],
};

/**
 * A separate process swapping each `dir` between a real directory and a symlink to outside, as
 * fast as it can, until killed. In between, the name is briefly missing (ENOENT is fine).
 */
const SWAPPER = `
const fs = require("node:fs");
const dirs = JSON.parse(process.argv[1]);
const hold = 0.1; // ms in each state: long enough for a tool call to straddle a swap
const cell = new Int32Array(new SharedArrayBuffer(4));
const pause = () => Atomics.wait(cell, 0, 0, hold);
// create_file may recreate a missing directory while it is swapped out: such an intruder is
// removed so that the swap keeps going.
const move = (from, to, evictIntruder) => {
  try { fs.renameSync(from, to); } catch (error) {
    if (!evictIntruder || !["EISDIR", "ENOTEMPTY", "EEXIST"].includes(error.code)) return;
    fs.rmSync(to, { recursive: true, force: true });
    try { fs.renameSync(from, to); } catch {}
  }
};
for (;;) {
  for (const dir of dirs) { move(dir, dir + ".real", false); move(dir + ".link", dir, true); }
  pause();
  for (const dir of dirs) { move(dir, dir + ".link", false); move(dir + ".real", dir, true); }
  pause();
}`;

describe("a concurrent directory swap cannot redirect the file tools (issue 8 item 4)", () => {
  let swapper: ChildProcess | undefined;
  const fixture = useHarnessFixture({
    name: "fs-race",
    script: SCRIPT,
    prepare: async (root, ws) => {
      const outside = path.join(root, "outside");
      await mkdir(outside);
      await writeFile(path.join(outside, "f.txt"), OUTSIDE_F);
      await writeFile(path.join(outside, "e.txt"), "END");
      await writeFile(path.join(outside, OUTSIDE_NAME), OUTSIDE_TEXT);
      await mkdir(path.join(ws, "d"));
      await writeFile(path.join(ws, "d", "f.txt"), "inside");
      await writeFile(path.join(ws, "d", "e.txt"), "END");
      await symlink("../outside", path.join(ws, "d.link"));
      await mkdir(path.join(ws, "s", "sub"), { recursive: true });
      await writeFile(path.join(ws, "s", "sub", "g.txt"), "inside");
      await symlink("../../outside", path.join(ws, "s", "sub.link"));
    },
  });
  afterAll(() => {
    swapper?.kill("SIGKILL");
  });

  it("never reads or writes outside while a directory component flips to a symlink", async () => {
    const client = await fixture.connect();
    swapper = spawn(process.execPath, ["-e", SWAPPER, JSON.stringify(["d", "s/sub"])], {
      cwd: fixture.workspace,
      stdio: "ignore",
    });
    const final: Frame[] = [];
    try {
      for (let turn = 0; turn < TURNS; turn++) {
        client.prompt(`race ${turn}`);
        final.push(...finalSteps(await client.turn()));
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((resolve) =>
        swapper?.exitCode !== null || swapper.signalCode !== null ? resolve(undefined) : swapper.once("exit", resolve),
      );
    }
    client.close();

    const views = final.filter((s) => s.viewFile !== undefined);
    expect(views).toHaveLength(TURNS * CALLS_PER_TURN * 4);
    // The race really ran: some reads got the inside file, some calls failed on the swap.
    expect(views.some((s) => s.state === "STATE_DONE" && s.viewFile.endLine === 1)).toBe(true);
    expect(final.some((s) => s.state === "STATE_ERROR")).toBe(true);
    const outsideReads = views.filter((s) => s.state === "STATE_DONE" && s.viewFile.endLine !== 1);
    const outsideGreps = final.filter(
      (s) => s.searchDirectory !== undefined && String(s.text ?? "").includes(OUTSIDE_TEXT),
    );
    const outsideListings = final.filter(
      (s) => s.findFile !== undefined && String(s.findFile.output ?? "").includes(OUTSIDE_NAME),
    );

    expect({
      outsideReads: outsideReads.length,
      outsideGreps: outsideGreps.length,
      outsideListings: outsideListings.length,
    }).toEqual({ outsideReads: 0, outsideGreps: 0, outsideListings: 0 });

    const outside = path.join(fixture.root, "outside");
    expect((await readdir(outside)).sort()).toEqual(["e.txt", "f.txt", OUTSIDE_NAME].sort());
    expect(await readFile(path.join(outside, "e.txt"), "utf8")).toBe("END");
    expect(await readFile(path.join(outside, "f.txt"), "utf8")).toBe(OUTSIDE_F);
  }, 120_000);
});
