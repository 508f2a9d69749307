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

/** Options of {@link createIndexedDbConversationStore}. */
export interface IndexedDbConversationStoreOptions extends ConversationStoreOptions {
  /** Database name; default `"antigravity-conversations"`. One database holds every conversation. */
  databaseName?: string;
  /** The IndexedDB factory; default `globalThis.indexedDB` (browsers, web workers, or a polyfill). */
  indexedDB?: IndexedDbFactoryLike;
}

/** `IDBFactory`, stated structurally (the core is compiled without DOM types). */
export interface IndexedDbFactoryLike {
  open(name: string, version?: number): unknown;
}

/** The parts of the IndexedDB API this store uses (the core is compiled without DOM types). */
type Handler = ((event: never) => unknown) | null;
interface IdbRequest<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: Handler;
  onerror: Handler;
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: Handler;
  onblocked: Handler;
}
interface IdbDatabase {
  readonly objectStoreNames: { contains(name: string): boolean };
  createObjectStore(name: string, options?: { autoIncrement?: boolean }): unknown;
  transaction(stores: string | string[], mode: "readwrite", options?: { durability?: "strict" }): IdbTransaction;
  close(): void;
  onversionchange: Handler;
  onclose: Handler;
}
interface IdbTransaction {
  readonly error: unknown;
  objectStore(name: string): IdbObjectStore;
  oncomplete: Handler;
  onerror: Handler;
  onabort: Handler;
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: unknown, key: string): IdbRequest<unknown>;
  add(value: unknown): IdbRequest<unknown>;
  delete(key: string): IdbRequest<unknown>;
}

/** A {@link ConversationStore} in IndexedDB. */
export interface IndexedDbConversationStore extends ConversationStore {
  delete(conversationId: string): Promise<void>;
  /** Closes the database connection; a later call opens it again. */
  close(): void;
}

/** Object store of the snapshots: key = conversation id, value = snapshot JSON text. */
const SNAPSHOTS = "snapshots";
/** Object store of unusable entries `load` moved aside: auto-increment key, `{ conversationId, movedAt, value }`. */
const MOVED_ASIDE = "movedAside";
const SCHEMA_VERSION = 1;

/**
 * Keeps conversations in IndexedDB (browsers, and any runtime with `globalThis.indexedDB`). Each
 * `save` is one `readwrite` transaction with strict durability, so it commits whole or not at
 * all, also across tabs; each `load` is one transaction too, so an unusable entry is moved to the
 * `movedAside` object store and removed atomically. Throws `FailedPrecondition` when the runtime
 * has no IndexedDB.
 *
 * @example
 * const store = createIndexedDbConversationStore();
 * const snapshot = await store.load(conversationId);
 */
export function createIndexedDbConversationStore(
  options: IndexedDbConversationStoreOptions = {},
): IndexedDbConversationStore {
  const factory = (options.indexedDB ?? (globalThis as { indexedDB?: IndexedDbFactoryLike }).indexedDB) as
    | { open(name: string, version: number): IdbOpenRequest }
    | undefined;
  if (factory === undefined) {
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      "IndexedDB is not available in this runtime: pass the `indexedDB` option or use another conversation store",
    );
  }
  const name = options.databaseName ?? "antigravity-conversations";
  let opening: Promise<IdbDatabase> | undefined;

  const database = (): Promise<IdbDatabase> => {
    opening ??= openDatabase(factory, name).then(
      (db) => {
        // Another tab upgrading the schema: step aside, and reopen on the next call.
        db.onversionchange = () => {
          db.close();
          opening = undefined;
        };
        db.onclose = () => (opening = undefined);
        return db;
      },
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    );
    return opening;
  };

  return {
    async load(conversationId) {
      assertStorableConversationId(conversationId);
      const where = `IndexedDB ${name}/${SNAPSHOTS}`;
      try {
        const tx = (await database()).transaction([SNAPSHOTS, MOVED_ASIDE], "readwrite");
        const committed = transactionDone(tx);
        committed.catch(() => undefined); // awaited below; a failed request reports first
        const stored: unknown = await request(tx.objectStore(SNAPSHOTS).get(conversationId));
        if (stored === undefined) {
          await committed;
          return undefined;
        }
        const decoded = decodeSnapshot(stored, conversationId);
        if ("snapshot" in decoded) {
          await committed;
          return decoded.snapshot;
        }
        // Same transaction: the entry is moved aside and removed together, or not at all.
        const key = await request(
          tx.objectStore(MOVED_ASIDE).add({ conversationId, movedAt: new Date().toISOString(), value: stored }),
        );
        tx.objectStore(SNAPSHOTS).delete(conversationId);
        await committed;
        reportWarning(
          options,
          unusableWarning(conversationId, where, decoded.problem, {
            movedTo: `IndexedDB ${name}/${MOVED_ASIDE} key ${String(key)}`,
          }),
        );
      } catch (error) {
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
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
      try {
        const tx = (await database()).transaction(SNAPSHOTS, "readwrite", { durability: "strict" });
        tx.objectStore(SNAPSHOTS).put(text, snapshot.conversationId);
        await transactionDone(tx);
      } catch (error) {
        throw storageError(`cannot save conversation ${snapshot.conversationId} to IndexedDB ${name}`, error);
      }
    },
    async delete(conversationId) {
      assertStorableConversationId(conversationId);
      try {
        const tx = (await database()).transaction(SNAPSHOTS, "readwrite", { durability: "strict" });
        tx.objectStore(SNAPSHOTS).delete(conversationId);
        await transactionDone(tx);
      } catch (error) {
        throw storageError(`cannot delete conversation ${conversationId} from IndexedDB ${name}`, error);
      }
    },
    close() {
      const pending = opening;
      opening = undefined;
      void pending?.then(
        (db) => db.close(),
        () => undefined,
      );
    },
  };
}

function openDatabase(
  factory: { open(name: string, version: number): IdbOpenRequest },
  name: string,
): Promise<IdbDatabase> {
  return new Promise((resolve, reject) => {
    const open = factory.open(name, SCHEMA_VERSION);
    open.onupgradeneeded = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains(SNAPSHOTS)) db.createObjectStore(SNAPSHOTS);
      if (!db.objectStoreNames.contains(MOVED_ASIDE)) db.createObjectStore(MOVED_ASIDE, { autoIncrement: true });
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(asError(open.error, `cannot open IndexedDB database ${name}`));
    open.onblocked = () =>
      reject(
        new Error(`IndexedDB database ${name} is held open by another tab with an older version; close it and retry`),
      );
  });
}

function request<T>(req: IdbRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(asError(req.error, "IndexedDB request failed"));
  });
}

/** Resolves when `tx` commits; rejects when it aborts or fails. */
function transactionDone(tx: IdbTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(asError(tx.error, "IndexedDB transaction failed"));
    tx.onabort = () => reject(asError(tx.error, "IndexedDB transaction aborted"));
  });
}

function storageError(what: string, error: unknown): SdkError {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const hint =
    error instanceof Error && error.name === "QuotaExceededError" ? "; free some storage or lower maxHistorySize" : "";
  return new SdkError(ErrorCode.FailedPrecondition, `${what}: ${reason}${hint}`, { cause: error });
}

function asError(error: unknown, fallback: string): unknown {
  return error ?? new Error(fallback);
}
