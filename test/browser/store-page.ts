// The page script of test/browser/indexeddb-store.spec.ts: the IndexedDB conversation store in
// Chromium, driven from the test through `window.storeTest`. Bundled from the built SDK.
import type { ConversationStoreWarning } from "@antigravity-ts/sdk";
import { createIndexedDbConversationStore } from "@antigravity-ts/sdk/storage";
import { sampleSnapshot, storeContractChecks } from "@antigravity-ts/sdk/testing";

const ID = "browser-0123456789abcdef0123456789abcdef";

/** Opens `name` with the store's schema (version 1: `snapshots`, `movedAside`). */
function openRaw(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => {
      open.result.createObjectStore("snapshots");
      open.result.createObjectStore("movedAside", { autoIncrement: true });
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function rawPut(name: string, key: string, value: unknown): Promise<void> {
  const db = await openRaw(name);
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction("snapshots", "readwrite");
    tx.objectStore("snapshots").put(value, key);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

async function rawMovedAside(name: string): Promise<unknown[]> {
  const db = await openRaw(name);
  const values = await new Promise<unknown[]>((resolve, reject) => {
    const request = db.transaction("movedAside").objectStore("movedAside").getAll();
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  db.close();
  return values;
}

const storeTest = {
  checkCount: storeContractChecks.length,

  /** Runs contract check `index` on a database of its own; resolves to its name or the error. */
  async check(index: number): Promise<{ ok: true; name: string } | { error: string }> {
    const check = storeContractChecks[index];
    if (check === undefined) return { error: `no check ${index}` };
    const databaseName = `contract-${index}`;
    const warnings: ConversationStoreWarning[] = [];
    const store = createIndexedDbConversationStore({ databaseName, onWarning: (w) => warnings.push(w) });
    try {
      await check.run({ store, warnings, writeRaw: (id, text) => rawPut(databaseName, id, text) });
      return { ok: true, name: check.name };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    } finally {
      store.close();
    }
  },

  /** A structured (non-text) garbage value: moved aside whole, kept in `movedAside`. */
  async movedAside(): Promise<{ loaded: unknown; warnings: string[]; kept: unknown[] }> {
    const warnings: string[] = [];
    await rawPut("moved", ID, { not: "a snapshot", list: [1, 2, 3] });
    const store = createIndexedDbConversationStore({
      databaseName: "moved",
      onWarning: (w) => warnings.push(w.message),
    });
    const loaded = (await store.load(ID)) ?? null;
    store.close();
    return { loaded, warnings, kept: await rawMovedAside("moved") };
  },

  /** Starts `count` saves (turnCount 1..count) without waiting: used to reload the page mid-save. */
  saveStorm(databaseName: string, count: number): void {
    const store = createIndexedDbConversationStore({ databaseName });
    for (let k = 1; k <= count; k++) {
      const snapshot = sampleSnapshot(ID, { turns: 1, padding: 50_000 });
      snapshot.turnCount = k;
      void store.save(snapshot).catch(() => undefined);
    }
  },

  /** Saves snapshots `from..to` one after the other (a tab's writer). */
  async saveRange(databaseName: string, from: number, to: number): Promise<void> {
    const store = createIndexedDbConversationStore({ databaseName });
    for (let k = from; k <= to; k++) {
      const snapshot = sampleSnapshot(ID, { turns: 1, padding: 20_000 });
      snapshot.turnCount = k;
      await store.save(snapshot);
    }
    store.close();
  },

  /** What `load` gives now: the turnCount, or null, and any warnings. */
  async load(databaseName: string): Promise<{ turnCount: number | null; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createIndexedDbConversationStore({ databaseName, onWarning: (w) => warnings.push(w.message) });
    const snapshot = await store.load(ID);
    store.close();
    return { turnCount: snapshot?.turnCount ?? null, warnings };
  },

  /** The factory guard: a runtime without IndexedDB gets FailedPrecondition at creation. */
  withoutIndexedDb(): string {
    try {
      createIndexedDbConversationStore({ indexedDB: undefined as never });
      const saved = Object.getOwnPropertyDescriptor(globalThis, "indexedDB");
      Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true });
      try {
        createIndexedDbConversationStore();
        return "created";
      } catch (error) {
        return `${(error as { code?: string }).code}: ${(error as Error).message}`;
      } finally {
        if (saved !== undefined) Object.defineProperty(globalThis, "indexedDB", saved);
      }
    } catch (error) {
      return `unexpected: ${(error as Error).message}`;
    }
  },
};

(window as unknown as { storeTest: typeof storeTest }).storeTest = storeTest;
document.body.dataset["ready"] = "true";
