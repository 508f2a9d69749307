import type { ConversationSnapshot } from "../conversation/conversation-snapshot.js";
import type { ConversationStore, ConversationStoreOptions } from "../conversation/conversation-store.js";
import { ErrorCode, SdkError } from "../errors.js";
import {
  assertStorableConversationId,
  decodeSnapshot,
  encodeSnapshot,
  reportWarning,
  unusableWarning,
} from "./store-contract.js";
import { errorText } from "../error-text.js";

/**
 * The part of Cloudflare's `DurableObjectStorage` (and of its transactions) this store uses,
 * stated structurally so the SDK needs no Cloudflare types: `ctx.storage` fits as it is.
 */
export interface DurableObjectKeyValue {
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

/** `ctx.storage` of a Durable Object: key-value calls plus `transaction()`. */
export interface DurableObjectStorageLike extends DurableObjectKeyValue {
  transaction<T>(closure: (txn: DurableObjectKeyValue) => Promise<T>): Promise<T>;
}

/** Options of {@link createDurableObjectConversationStore}. */
export interface DurableObjectConversationStoreOptions extends ConversationStoreOptions {
  /** Prefix of every key the store writes; default `"conversation/"`. Keeps other data of the object apart. */
  keyPrefix?: string;
}

/** A {@link ConversationStore} in a Durable Object's storage. */
export interface DurableObjectConversationStore extends ConversationStore {
  delete(conversationId: string): Promise<void>;
}

/** Characters per stored chunk: at most 96 KiB even as UTF-16, under the 128 KiB value limit of KV-backed objects. */
const CHUNK_CHARS = 48 * 1024;
/** Keys per `get`/`put`/`delete` call (the storage API's limit). */
const BATCH = 128;
const LAYOUT = 1;

/** What the snapshot key holds: which chunks make up the snapshot's JSON text. */
interface Manifest {
  layout: typeof LAYOUT;
  generation: string;
  chunks: number;
  length: number;
}

/**
 * Keeps conversations in a Cloudflare Durable Object's storage (`ctx.storage`, SQLite- or
 * KV-backed). A snapshot's JSON text is split into chunks that fit the per-value limit, written
 * under a fresh generation together with the manifest that names them in one `transaction()`,
 * so a save commits whole or not at all and `load` never sees a mix; the previous generation is
 * deleted in the same transaction. An unusable entry is moved to `<prefix>moved/...` by `load`.
 *
 * @example
 * export class ChatRoom extends DurableObject {
 *   store = createDurableObjectConversationStore(this.ctx.storage);
 * }
 */
export function createDurableObjectConversationStore(
  storage: DurableObjectStorageLike,
  options: DurableObjectConversationStoreOptions = {},
): DurableObjectConversationStore {
  const prefix = options.keyPrefix ?? "conversation/";
  if (prefix.length > 512)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `keyPrefix is ${prefix.length} characters; keys must stay under 2 KiB, so use at most 512`,
    );
  const snapshotKey = (id: string): string => `${prefix}snapshot/${id}`;
  const chunkKey = (id: string, generation: string, index: number): string =>
    `${prefix}chunk/${generation}/${index}/${id}`;
  const chunkKeys = (id: string, manifest: Manifest): string[] =>
    Array.from({ length: manifest.chunks }, (_, i) => chunkKey(id, manifest.generation, i));

  return {
    async load(conversationId) {
      assertStorableConversationId(conversationId);
      const where = `Durable Object key ${snapshotKey(conversationId)}`;
      try {
        const outcome = await storage.transaction(async (txn) => {
          const manifest = (await txn.get([snapshotKey(conversationId)])).get(snapshotKey(conversationId));
          if (manifest === undefined) return undefined;
          const problem = manifestProblem(manifest);
          if (problem === undefined) {
            const text = await readChunks(
              txn,
              chunkKeys(conversationId, manifest as Manifest),
              (manifest as Manifest).length,
            );
            const decoded = typeof text === "string" ? decodeSnapshot(text, conversationId) : text;
            if ("snapshot" in decoded) return decoded;
            return { problem: decoded.problem, movedTo: await moveAside(txn, conversationId, manifest) };
          }
          return { problem, movedTo: await moveAside(txn, conversationId, manifest) };
        });
        if (outcome === undefined || "snapshot" in outcome) return outcome?.snapshot;
        reportWarning(options, unusableWarning(conversationId, where, outcome.problem, { movedTo: outcome.movedTo }));
      } catch (error) {
        const reason = errorText(error);
        reportWarning(options, {
          conversationId,
          cause: error,
          message: `cannot read stored conversation ${conversationId} from ${where} (${reason}); the conversation starts empty`,
        });
      }
      return undefined;
    },
    async save(snapshot: ConversationSnapshot) {
      const text = encodeSnapshot(snapshot);
      const id = snapshot.conversationId;
      const manifest: Manifest = {
        layout: LAYOUT,
        generation: newGeneration(),
        chunks: Math.max(1, Math.ceil(text.length / CHUNK_CHARS)),
        length: text.length,
      };
      const entries = chunkKeys(id, manifest).map((key, i): [string, unknown] => [
        key,
        text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS),
      ]);
      try {
        await storage.transaction(async (txn) => {
          const previous = (await txn.get([snapshotKey(id)])).get(snapshotKey(id));
          // The manifest goes in the last batch: the whole transaction commits or none of it.
          for (const batch of batches([...entries, [snapshotKey(id), manifest]]))
            await txn.put(Object.fromEntries(batch));
          if (manifestProblem(previous) === undefined) {
            for (const batch of batches(chunkKeys(id, previous as Manifest))) await txn.delete(batch);
          }
        });
      } catch (error) {
        const reason = errorText(error);
        throw new SdkError(
          ErrorCode.FailedPrecondition,
          `cannot save conversation ${id} (${text.length} characters) to Durable Object storage: ${reason}`,
          { cause: error },
        );
      }
    },
    async delete(conversationId) {
      assertStorableConversationId(conversationId);
      await storage.transaction(async (txn) => {
        const manifest = (await txn.get([snapshotKey(conversationId)])).get(snapshotKey(conversationId));
        const keys = manifestProblem(manifest) === undefined ? chunkKeys(conversationId, manifest as Manifest) : [];
        for (const batch of batches([snapshotKey(conversationId), ...keys])) await txn.delete(batch);
      });
    },
  };

  /** Keeps an unusable manifest (and so the chunks it names) under `<prefix>moved/<time>/<id>`. */
  async function moveAside(txn: DurableObjectKeyValue, conversationId: string, manifest: unknown): Promise<string> {
    const key = `${prefix}moved/${newGeneration()}/${conversationId}`;
    await txn.put({ [key]: manifest });
    await txn.delete([snapshotKey(conversationId)]);
    return `Durable Object key ${key}`;
  }
}

/** Why `value` is not a manifest this store wrote, or `undefined` when it is one. */
function manifestProblem(value: unknown): string | undefined {
  const m = value as Partial<Manifest> | null | undefined;
  const ok =
    typeof m === "object" &&
    m !== null &&
    m.layout === LAYOUT &&
    typeof m.generation === "string" &&
    /^[a-z0-9]+$/.test(m.generation) &&
    Number.isSafeInteger(m.chunks) &&
    (m.chunks as number) >= 1 &&
    Number.isSafeInteger(m.length) &&
    (m.length as number) >= 0;
  return ok ? undefined : "its index entry is not one this store wrote";
}

/** The chunks joined, or the problem when one is missing or the length is off. */
async function readChunks(
  txn: DurableObjectKeyValue,
  keys: string[],
  length: number,
): Promise<string | { problem: string }> {
  let text = "";
  for (const batch of batches(keys)) {
    const values = await txn.get(batch);
    for (const key of batch) {
      const value = values.get(key);
      if (typeof value !== "string") return { problem: `chunk ${key} is missing` };
      text += value;
    }
  }
  return text.length === length ? text : { problem: `its chunks hold ${text.length} characters, not ${length}` };
}

/** A key part unique to this write: time plus randomness, `[a-z0-9]+`. */
function newGeneration(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, "0")}`;
}

function* batches<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += BATCH) yield items.slice(i, i + BATCH);
}
