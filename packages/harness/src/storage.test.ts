import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileSessionStore, StorageError, type StoredSession } from "./storage.js";

const session = (cascadeId: string, text: string): StoredSession => ({
  version: 1,
  cascadeId,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  history: [{ stepIndex: 0, text }],
  transcript: [{ role: "user", text }],
  usage: { promptTokens: 1, candidatesTokens: 2, thoughtsTokens: 0, cachedTokens: 0, totalTokens: 3 },
});

describe("file session store", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "harness-store-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("saves one JSON file per cascade id, atomically, the last save winning", async () => {
    const store = createFileSessionStore(path.join(dir, "nested"));
    expect(await store.load("abc")).toBeUndefined();
    await Promise.all(["one", "two", "three"].map((text) => store.save(session("abc", text))));
    expect(await readdir(path.join(dir, "nested"))).toEqual(["abc.json"]);
    expect((await store.load("abc"))?.transcript).toEqual([{ role: "user", text: "three" }]);
  });

  it("refuses unusable ids and reports corrupt files", async () => {
    const store = createFileSessionStore(dir);
    await expect(store.load("../escape")).rejects.toThrow(StorageError);
    await writeFile(path.join(dir, "broken.json"), "{ not json");
    await expect(store.load("broken")).rejects.toThrow(/session file .*broken\.json is corrupt/);
  });
});
