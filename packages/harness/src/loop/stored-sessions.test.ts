import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../log.js";
import { createFileSessionStore, MAX_SESSION_FILE_BYTES, StorageError, type StoredSession } from "./stored-sessions.js";

const session = (cascadeId: string, text: string): StoredSession => ({
  version: 1,
  cascadeId,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  history: [{ stepIndex: 0, text }],
  transcript: [{ role: "user", text }],
  summaries: ["one", "two"],
  firstPrompt: "first",
  usage: { promptTokens: 1, candidatesTokens: 2, thoughtsTokens: 0, cachedTokens: 0, totalTokens: 3 },
  calls: { modelCalls: 4, toolCalls: 5 },
});

describe("file session store", () => {
  let dir: string;
  const warnings: string[] = [];
  const log = createLogger({ write: (line) => warnings.push(line) });
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "harness-store-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("saves one JSON file per cascade id, atomically, the last save winning, with summaries and budget counts", async () => {
    const store = createFileSessionStore(path.join(dir, "nested"));
    expect(await store.load("abc")).toBeUndefined();
    await Promise.all(["one", "two", "three"].map((text) => store.save(session("abc", text))));
    expect(await readdir(path.join(dir, "nested"))).toEqual(["abc.json"]);
    expect(await store.load("abc")).toEqual(session("abc", "three"));
  });

  it("makes its directory again when it was removed after the first save", async () => {
    const root = path.join(dir, "removed");
    const store = createFileSessionStore(root);
    await store.save(session("abc", "one"));
    await rm(root, { recursive: true });
    await store.save(session("abc", "two"));
    expect(await readdir(root)).toEqual(["abc.json"]);
    expect(await store.load("abc")).toEqual(session("abc", "two"));
  });

  it("refuses unusable ids", async () => {
    const store = createFileSessionStore(dir, { log });
    await expect(store.load("../escape")).rejects.toThrow(StorageError);
  });

  const corrupt: [string, (file: string) => Promise<void>, RegExp][] = [
    ["not JSON", (file) => writeFile(file, "{ not json"), /is not valid JSON|Unexpected token|Expected property name/],
    [
      "another session's file",
      (file) => writeFile(file, JSON.stringify(session("other", "x"))),
      /holds session "other"/,
    ],
    [
      "a transcript of the wrong shape",
      async (file) =>
        writeFile(
          file,
          JSON.stringify({ ...session(path.basename(file, ".json"), "x"), transcript: [{ role: "robot" }] }),
        ),
      /transcript\[0\]\.role "robot"/,
    ],
    [
      "a history entry that is no StepUpdate",
      async (file) =>
        writeFile(
          file,
          JSON.stringify({ ...session(path.basename(file, ".json"), "x"), history: [{ stepIndex: "many" }] }),
        ),
      /history\[0\] is not a StepUpdate/,
    ],
    ["a FIFO (read without blocking)", async (file) => void execFileSync("mkfifo", [file]), /it is a FIFO/],
    ["a directory", (file) => mkdir(file), /it is a directory/],
    [
      "a symlink, even to a valid session",
      async (file) => {
        const target = path.join(dir, "elsewhere.json");
        await writeFile(target, JSON.stringify(session(path.basename(file, ".json"), "x")));
        await symlink(target, file);
      },
      /symbolic link/,
    ],
    ["a dangling symlink", (file) => symlink(path.join(dir, "missing-target.json"), file), /symbolic link/],
  ];
  for (const [what, make, problem] of corrupt) {
    it(`moves ${what} aside with a warning and starts the session empty`, async () => {
      const id = `c${corrupt.findIndex(([w]) => w === what)}`;
      const sub = path.join(dir, id);
      await mkdir(sub);
      const file = path.join(sub, `${id}.json`);
      await make(file);
      warnings.length = 0;
      const store = createFileSessionStore(sub, { log });
      const loaded = await store.load(id);
      expect(loaded).toMatchObject({
        version: 1,
        cascadeId: id,
        history: [],
        transcript: [],
        usage: { totalTokens: 0 },
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^warning: session file .* is corrupt \(/);
      expect(warnings[0]).toMatch(problem);
      const names = (await readdir(sub)).filter((name) => name !== "elsewhere.json");
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(new RegExp(`^${id}\\.json\\.corrupt-[0-9TZ-]+-[0-9a-f]{8}$`));
      expect(warnings[0]).toContain(names[0]);
      // The id is usable again: a save writes a fresh file next to the one moved aside.
      await store.save(session(id, "fresh"));
      expect((await store.load(id))?.transcript).toEqual([{ role: "user", text: "fresh" }]);
    });
  }

  it("keeps the bytes of a moved-aside file for inspection", async () => {
    const sub = path.join(dir, "keep");
    await mkdir(sub);
    await writeFile(path.join(sub, "keep.json"), "torn {");
    await createFileSessionStore(sub, { log }).load("keep");
    const [aside] = await readdir(sub);
    expect(await readFile(path.join(sub, aside as string), "utf8")).toBe("torn {");
  });

  it("refuses, without moving it, a file too big to be a session (no attempt to read it all)", async () => {
    const sub = path.join(dir, "huge");
    await mkdir(sub);
    // Sparse: costs no disk, but its size says 1 byte more than a session file may have.
    await writeFile(path.join(sub, "huge.json"), "");
    await truncate(path.join(sub, "huge.json"), MAX_SESSION_FILE_BYTES + 1);
    await expect(createFileSessionStore(sub, { log }).load("huge")).rejects.toThrow(
      /cannot read session huge: the file has \d+ bytes, more than/,
    );
    expect(await readdir(sub)).toEqual(["huge.json"]);
  });
});
