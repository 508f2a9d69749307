import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, lstatSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, parseConversationSnapshot, SdkError, type ConversationStoreWarning } from "@antigravity-ts/sdk";
import { sampleSnapshot, storeContractChecks } from "@antigravity-ts/sdk/testing";
import { snapshotFileName } from "./file-names.js";
import { createFileConversationStore, type FileConversationStoreOptions } from "./file-store.js";

const ID = "persist-test-0123456789abcdef0123456789ab";
const tsxLoader = createRequire(import.meta.url).resolve("tsx");
const saveLoop = fileURLToPath(new URL("./testing/save-loop.ts", import.meta.url));

let root: string;
let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "file-store-"));
  dir = path.join(root, "store");
});

afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await rm(root, { recursive: true, force: true });
});

function subject(options: FileConversationStoreOptions = {}) {
  const warnings: ConversationStoreWarning[] = [];
  const store = createFileConversationStore(dir, { onWarning: (w) => warnings.push(w), ...options });
  return {
    store,
    warnings,
    writeRaw: async (id: string, text: string) =>
      void (await mkdir(dir, { recursive: true }), await writeFile(path.join(dir, snapshotFileName(id)), text)),
  };
}

/** Entries of the store directory, sorted. */
async function entries(): Promise<string[]> {
  return (await readdir(dir)).sort();
}

describe("createFileConversationStore: the store contract", () => {
  for (const check of storeContractChecks) it(check.name, async () => check.run(subject()));
});

describe("createFileConversationStore: files", () => {
  it("writes <id>.json with mode 0600 in a directory it creates with mode 0700, and leaves no temp file", async () => {
    const { store } = subject();
    await store.save(sampleSnapshot(ID));
    expect(await entries()).toEqual([`${ID}.json`]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, `${ID}.json`))).mode & 0o777).toBe(0o600);
    expect(parseConversationSnapshot(JSON.parse(await readFile(await store.pathOf(ID), "utf8"))).conversationId).toBe(
      ID,
    );
  });

  it("names files so no id reaches outside the directory or collides: traversal, separators, NUL, case, reserved names", async () => {
    const { store } = subject();
    const ids = [
      "../../escape",
      "..",
      "a/b",
      "a\\b",
      "nul\u0000x",
      "Upper",
      "upper",
      "con",
      "x".repeat(256),
      "/etc/passwd",
    ];
    for (const [i, id] of ids.entries()) await store.save(sampleSnapshot(id, { turns: i + 1 }));
    const names = await entries();
    expect(names).toHaveLength(ids.length);
    expect(names.filter((n) => n !== "upper.json").every((n) => /^~[0-9a-f]{64}\.json$/.test(n))).toBe(true);
    expect(await readdir(root)).toEqual(["store"]); // nothing was written beside the store
    for (const [i, id] of ids.entries()) expect((await store.load(id))?.turnCount).toBe(i + 1);
  });

  it("refuses a file that holds another id's snapshot (a planted or colliding file) and moves it aside", async () => {
    const { store, warnings } = subject();
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, snapshotFileName("upper")), JSON.stringify(sampleSnapshot("Upper")));
    expect(await store.load("upper")).toBeUndefined();
    expect(warnings[0]?.message).toContain('it holds conversation "Upper", not "upper"');
  });

  it("moves an oversized file aside without reading it", async () => {
    const { store, warnings, writeRaw } = subject({ maxFileBytes: 1000 });
    await writeRaw(ID, JSON.stringify(sampleSnapshot(ID, { padding: 5000 })));
    expect(await store.load(ID)).toBeUndefined();
    expect(warnings[0]?.message).toMatch(/it is \d+ bytes, more than maxFileBytes \(1000\)/);
  });

  it("saves of two conversations interleaved in one process each keep their own last snapshot", async () => {
    const { store } = subject();
    const other = `${ID}-other`;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.save(sampleSnapshot(i % 2 === 0 ? ID : other, { turns: i + 1 }))),
    );
    expect((await store.load(ID))?.turnCount).toBe(29);
    expect((await store.load(other))?.turnCount).toBe(30);
    expect(await entries()).toEqual([`${ID}.json`, `${other}.json`].sort());
  });
});

describe("createFileConversationStore: hostile entries at the snapshot's path", () => {
  it("a symbolic link to a file elsewhere is moved aside unread, and save replaces the link, never writing through it", async () => {
    const { store, warnings } = subject();
    const outside = path.join(root, "outside.json");
    await writeFile(outside, JSON.stringify(sampleSnapshot(ID, { turns: 7 }))); // even a valid snapshot is not followed
    await mkdir(dir);
    await symlink(outside, path.join(dir, `${ID}.json`));
    expect(await store.load(ID)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain("it is a symbolic link");
    expect(lstatSync(warnings[0]?.movedTo as string).isSymbolicLink()).toBe(true);

    await symlink(outside, path.join(dir, `${ID}.json`));
    await store.save(sampleSnapshot(ID, { turns: 2 }));
    expect(lstatSync(path.join(dir, `${ID}.json`)).isFile()).toBe(true);
    expect(JSON.parse(await readFile(outside, "utf8")).turnCount).toBe(7);
    expect((await store.load(ID))?.turnCount).toBe(2);
  });

  it("a dangling symbolic link is moved aside, and save never creates its target", async () => {
    const { store, warnings } = subject();
    const target = path.join(root, "created-through-link.json");
    await mkdir(dir);
    await symlink(target, path.join(dir, `${ID}.json`));
    expect(await store.load(ID)).toBeUndefined();
    expect(warnings[0]?.message).toContain("it is a symbolic link");
    await symlink(target, path.join(dir, `${ID}.json`));
    await store.save(sampleSnapshot(ID));
    expect(existsSync(target)).toBe(false);
    expect((await store.load(ID))?.turnCount).toBe(2);
  });

  it("a directory is moved aside by load, and by save with a warning", async () => {
    const { store, warnings } = subject();
    await mkdir(path.join(dir, `${ID}.json`, "inside"), { recursive: true });
    expect(await store.load(ID)).toBeUndefined();
    expect(warnings[0]?.message).toContain("it is a directory, not a regular file");
    await mkdir(path.join(dir, `${ID}.json`, "inside"), { recursive: true });
    await store.save(sampleSnapshot(ID));
    expect(warnings[1]?.message).toMatch(/was a directory, not a snapshot file; it was moved to .+\.corrupt-/);
    expect((await store.load(ID))?.turnCount).toBe(2);
    expect((await entries()).filter((n) => n.includes(".corrupt-"))).toHaveLength(2);
  });

  it("a FIFO does not block load (moved aside) and save replaces it", async () => {
    const { store, warnings } = subject();
    await mkdir(dir);
    execFileSync("mkfifo", [path.join(dir, `${ID}.json`)]);
    expect(await store.load(ID)).toBeUndefined();
    expect(warnings[0]?.message).toContain("it is a FIFO, not a regular file");
    execFileSync("mkfifo", [path.join(dir, `${ID}.json`)]);
    await store.save(sampleSnapshot(ID));
    expect((await store.load(ID))?.turnCount).toBe(2);
  });
});

describe("createFileConversationStore: the directory", () => {
  it("a symbolic link as the directory is resolved once: re-pointing it later does not move the store", async () => {
    const first = path.join(root, "first");
    const second = path.join(root, "second");
    await mkdir(first);
    await mkdir(second);
    await symlink(first, dir);
    const { store } = subject();
    await store.save(sampleSnapshot(ID, { turns: 1 }));
    await rm(dir);
    await symlink(second, dir);
    await store.save(sampleSnapshot(ID, { turns: 2 }));
    expect(await readdir(first)).toEqual([`${ID}.json`]);
    expect(await readdir(second)).toEqual([]);
    expect(await store.pathOf(ID)).toBe(path.join(first, `${ID}.json`));
  });

  it("a directory path that is a file or a dangling link: load warns and gives undefined, save says what to fix", async () => {
    for (const make of [() => writeFile(dir, "not a directory"), () => symlink(path.join(root, "missing"), dir)]) {
      await rm(dir, { force: true });
      await make();
      const { store, warnings } = subject();
      expect(await store.load(ID)).toBeUndefined();
      expect(warnings[0]?.message).toContain(`conversation store directory ${dir} is unusable`);
      const error = await store.save(sampleSnapshot(ID)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.FailedPrecondition);
      expect((error as SdkError).message).toMatch(
        /unusable: (.+\((something that is not a directory is in the way|a path component is not a directory)|it is a symbolic link to a missing directory)/,
      );
    }
  });
});

describe("createFileConversationStore: several processes", () => {
  /** Starts save-loop.ts as a child process. */
  function writer(n: number, count: number | "forever"): ChildProcess {
    const child = spawn(
      process.execPath,
      ["--conditions=antigravity-source", "--import", tsxLoader, saveLoop, dir, ID, String(n), String(count)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    return child;
  }

  /** Resolves once `child` printed `saved <n>` lines `times` times. */
  async function savedAtLeast(child: ChildProcess, times: number): Promise<void> {
    let seen = 0;
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk
          .toString()
          .split("\n")
          .filter((l) => l.startsWith("saved")).length;
        if (seen >= times) resolve();
      });
      child.once("exit", (code) =>
        seen >= times ? resolve() : reject(new Error(`writer exited (${code}) after ${seen} saves: ${err}`)),
      );
    });
  }

  it("two processes saving one conversation never leave a torn file: every read parses as one whole snapshot", async () => {
    const a = writer(1, 25);
    const b = writer(2, 25);
    const done = Promise.all([once(a, "exit"), once(b, "exit")]);
    let finished = false;
    void done.then(() => (finished = true));
    const seen = new Set<number>();
    const file = path.join(dir, `${ID}.json`);
    while (!finished) {
      const text = await readFile(file, "utf8").catch(() => undefined);
      if (text !== undefined) seen.add(parseConversationSnapshot(JSON.parse(text)).turnCount);
    }
    expect(await done).toEqual([
      [0, null],
      [0, null],
    ]);
    expect([...seen].every((n) => (n > 1000 && n <= 1025) || (n > 2000 && n <= 2025))).toBe(true);
    const last = (await createFileConversationStore(dir).load(ID))?.turnCount;
    expect([1025, 2025]).toContain(last);
    expect(await entries()).toEqual([`${ID}.json`]);
  });

  it("a process killed while saving leaves the old or a new snapshot, and its temp file is swept by the next store", async () => {
    const { store } = subject();
    await store.save(sampleSnapshot(ID, { turns: 1 }));
    for (let round = 0; round < 3; round++) {
      const child = writer(3, "forever");
      await savedAtLeast(child, 2 + round);
      child.kill("SIGKILL");
      await once(child, "exit");
      const text = await readFile(path.join(dir, `${ID}.json`), "utf8");
      expect(parseConversationSnapshot(JSON.parse(text)).turnCount).toBeGreaterThan(3000);
    }
    const fresh = subject();
    expect((await fresh.store.load(ID))?.turnCount).toBeGreaterThan(3000);
    expect((await entries()).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(fresh.warnings).toEqual([]);
  });
});
