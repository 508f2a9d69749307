import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { storeContractChecks } from "@antigravity-ts/sdk/testing";
import { bundleWorker } from "./bundle-worker.js";

// createDurableObjectConversationStore on a real Durable Object's storage in real workerd
// (miniflare), with the SQLite and the key-value storage backends: the store contract every
// adapter keeps, a transaction that fails halfway, broken layouts, and a workerd restart.

let script: string;
const workers: Miniflare[] = [];
let persist: string;

async function start(useSQLite: boolean, persistTo?: string): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-01",
    durableObjects: { STORE: { className: "StoreTester", useSQLite } },
    ...(persistTo === undefined ? {} : { durableObjectsPersist: persistTo }),
  });
  workers.push(mf);
  await mf.ready;
  return mf;
}

async function call(mf: Miniflare, url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await mf.dispatchFetch(`http://store.test${url}`, { method: "POST" });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  script = await bundleWorker("test/workerd/store-worker.ts");
  persist = await mkdtemp(path.join(tmpdir(), "do-store-"));
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((mf) => mf.dispose()));
});

afterAll(async () => {
  await rm(persist, { recursive: true, force: true });
});

for (const useSQLite of [true, false]) {
  describe(`Durable Object conversation store in workerd (${useSQLite ? "SQLite" : "key-value"} backend)`, () => {
    it("keeps the store contract", async () => {
      const mf = await start(useSQLite);
      const results = await Promise.all(storeContractChecks.map((_, i) => call(mf, `/check-${i}/check/${i}`)));
      expect(results.map((r) => r.body)).toEqual(storeContractChecks.map((check) => ({ ok: true, name: check.name })));
    });

    it("stores a snapshot of more chunks than one put takes, and a smaller save removes the old chunks", async () => {
      const { body } = await call(await start(useSQLite), "/large/large");
      const result = body["result"] as { chunks: number; same: boolean; keysAfterSmallSave: string[] };
      expect(result.chunks).toBeGreaterThan(128);
      expect(result.same).toBe(true);
      expect(result.keysAfterSmallSave).toHaveLength(2); // one manifest, one chunk
    });

    it("a save that fails inside its transaction leaves the previous snapshot and no stray key", async () => {
      const { body } = await call(await start(useSQLite), "/failed/failedSave");
      expect(body["result"]).toEqual({
        error: expect.stringMatching(
          /^SdkError: cannot save conversation workerd-\w+ \(\d+ characters\) to Durable Object storage: power cut after the chunks were written$/,
        ),
        turnCount: 1,
        sameKeys: true,
      });
    });

    it("a missing chunk or a foreign index entry is moved aside with a warning, and load gives undefined", async () => {
      const { body } = await call(await start(useSQLite), "/broken/brokenLayout");
      const result = body["result"] as { missingChunk: unknown; notAManifest: unknown; keys: string[] };
      expect([result.missingChunk, result.notAManifest]).toEqual([null, null]);
      const warnings = body["warnings"] as { message: string; movedTo: string }[];
      expect(warnings.map((w) => w.message)).toEqual([
        expect.stringMatching(
          /is unusable: chunk conversation\/chunk\/.+ is missing\. It was moved to Durable Object key conversation\/moved\//,
        ),
        expect.stringContaining("is unusable: its index entry is not one this store wrote"),
      ]);
      expect(result.keys.filter((k) => k.startsWith("conversation/moved/"))).toHaveLength(2);
      expect(result.keys.filter((k) => k.startsWith("conversation/snapshot/"))).toEqual([]);
    });

    it("a snapshot survives a restart of workerd", async () => {
      const dir = path.join(persist, useSQLite ? "sqlite" : "kv");
      expect((await call(await start(useSQLite, dir), "/restart/saveOnly")).body).toEqual({
        result: { saved: true },
        warnings: [],
      });
      await Promise.all(workers.splice(0).map((mf) => mf.dispose()));
      expect((await call(await start(useSQLite, dir), "/restart/loadOnly")).body).toEqual({
        result: { turnCount: 4 },
        warnings: [],
      });
    });
  });
}
