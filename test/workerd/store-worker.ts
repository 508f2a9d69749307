// A Worker with a Durable Object that runs the ConversationStore contract against its own
// `ctx.storage`, for test/workerd/durable-object-store.test.ts. Bundled like any Worker (built
// SDK, workerd conditions); no Cloudflare types: the DO is a plain class, as workerd allows.
//   POST /<object name>/check/<index>   run storeContractChecks[index]        -> {ok} | {error}
//   POST /<object name>/<scenario>      run a Durable-Object-specific scenario -> JSON result
import type { ConversationStoreWarning } from "@antigravity-ts/sdk";
import {
  createDurableObjectConversationStore,
  type DurableObjectKeyValue,
  type DurableObjectStorageLike,
} from "@antigravity-ts/sdk/storage";
import { sampleSnapshot, storeContractChecks } from "@antigravity-ts/sdk/testing";

/** `ctx.storage` with `list`, which only these scenarios use (to see every key the store left). */
interface Storage extends DurableObjectStorageLike {
  list(options: { prefix: string }): Promise<Map<string, unknown>>;
}

interface Env {
  STORE: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

const ID = "workerd-0123456789abcdef0123456789abcdef";
const PREFIX = "conversation/";

/** Writes `text` as the snapshot of `id` the way the store lays it out (one chunk), bypassing save. */
async function writeRaw(storage: Storage, id: string, text: string): Promise<void> {
  await storage.put({
    [`${PREFIX}chunk/raw/0/${id}`]: text,
    [`${PREFIX}snapshot/${id}`]: { layout: 1, generation: "raw", chunks: 1, length: text.length },
  });
}

/** Keys of the store, without the id part of chunk keys' generations. */
async function keys(storage: Storage): Promise<string[]> {
  return [...(await storage.list({ prefix: PREFIX })).keys()];
}

const scenarios: Record<string, (storage: Storage, warnings: ConversationStoreWarning[]) => Promise<unknown>> = {
  /** A snapshot of more chunks than one put takes (128 keys), round trip. */
  async large(storage, warnings) {
    const store = createDurableObjectConversationStore(storage, { onWarning: (w) => warnings.push(w) });
    const snapshot = sampleSnapshot(ID, { turns: 140, padding: 48_000 });
    await store.save(snapshot);
    const chunks = (await keys(storage)).filter((k) => k.includes("/chunk/")).length;
    const same = JSON.stringify(await store.load(ID)) === JSON.stringify(snapshot);
    await store.save(sampleSnapshot(ID));
    return { chunks, same, keysAfterSmallSave: await keys(storage) };
  },
  /** A save whose transaction fails after its chunks were put: nothing of it remains. */
  async failedSave(storage, warnings) {
    const store = createDurableObjectConversationStore(storage, { onWarning: (w) => warnings.push(w) });
    await store.save(sampleSnapshot(ID, { turns: 1 }));
    const before = await keys(storage);
    const failing: DurableObjectStorageLike = {
      get: (k) => storage.get(k),
      put: (e) => storage.put(e),
      delete: (k) => storage.delete(k),
      transaction: (closure) =>
        storage.transaction((txn) =>
          closure({
            get: (k) => txn.get(k),
            delete: (k) => txn.delete(k),
            put: async (entries: Record<string, unknown>) => {
              await txn.put(entries);
              if (Object.keys(entries).some((k) => k.startsWith(`${PREFIX}snapshot/`)))
                throw new Error("power cut after the chunks were written");
            },
          } satisfies DurableObjectKeyValue),
        ),
    };
    const error = await createDurableObjectConversationStore(failing)
      .save(sampleSnapshot(ID, { turns: 9, padding: 200_000 }))
      .then(
        () => undefined,
        (e: Error) => `${e.name}: ${e.message}`,
      );
    return {
      error,
      turnCount: (await store.load(ID))?.turnCount,
      sameKeys: JSON.stringify(await keys(storage)) === JSON.stringify(before),
    };
  },
  /** A manifest whose chunk is gone, and a manifest that is not one: both moved aside. */
  async brokenLayout(storage, warnings) {
    const store = createDurableObjectConversationStore(storage, { onWarning: (w) => warnings.push(w) });
    await store.save(sampleSnapshot(ID));
    const chunk = (await keys(storage)).find((k) => k.includes("/chunk/")) as string;
    await storage.delete([chunk]);
    const missingChunk = await store.load(ID);
    await storage.put({ [`${PREFIX}snapshot/${ID}`]: 42 });
    const notAManifest = await store.load(ID);
    return { missingChunk: missingChunk ?? null, notAManifest: notAManifest ?? null, keys: await keys(storage) };
  },
  /** Save only (the test restarts workerd, then `loadOnly`). */
  async saveOnly(storage) {
    await createDurableObjectConversationStore(storage).save(sampleSnapshot(ID, { turns: 4 }));
    return { saved: true };
  },
  async loadOnly(storage, warnings) {
    return {
      turnCount:
        (await createDurableObjectConversationStore(storage, { onWarning: (w) => warnings.push(w) }).load(ID))
          ?.turnCount ?? null,
    };
  },
};

/** The Durable Object: one instance per test, by name. */
export class StoreTester {
  readonly #storage: Storage;

  constructor(state: { storage: Storage }) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const [, , action, arg] = new URL(request.url).pathname.split("/");
    const warnings: ConversationStoreWarning[] = [];
    try {
      if (action === "check") {
        const check = storeContractChecks[Number(arg)];
        if (check === undefined) return Response.json({ error: `no check ${arg}` }, { status: 404 });
        await check.run({
          store: createDurableObjectConversationStore(this.#storage, { onWarning: (w) => warnings.push(w) }),
          warnings,
          writeRaw: (id, text) => writeRaw(this.#storage, id, text),
        });
        return Response.json({ ok: true, name: check.name });
      }
      const scenario = scenarios[action ?? ""];
      if (scenario === undefined) return Response.json({ error: `no scenario ${action}` }, { status: 404 });
      const result = await scenario(this.#storage, warnings);
      return Response.json({
        result,
        warnings: warnings.map((w) => ({ message: w.message, movedTo: w.movedTo ?? null })),
      });
    } catch (error) {
      return Response.json(
        { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) },
        { status: 500 },
      );
    }
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const name = new URL(request.url).pathname.split("/")[1] ?? "default";
    return env.STORE.get(env.STORE.idFromName(name)).fetch(request);
  },
};
