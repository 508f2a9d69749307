import type { ConversationSnapshot } from "./conversation-snapshot.js";

/**
 * Where conversations are kept between processes (seed 002's durable conversation). One small
 * contract, whatever the storage (memory, file system, IndexedDB, Durable Object storage):
 *
 * - `load` never fails because of what is stored: nothing stored → `undefined`; an entry that
 *   cannot be read or is not a valid snapshot → moved aside (kept under another name, never
 *   deleted), reported through the store's `onWarning`, then `undefined`. It rejects only for an
 *   id that no store can hold (`InvalidArgument`, a caller bug).
 * - `save` is atomic: once it resolves the store holds this snapshot; if the process dies at any
 *   point, the store holds either the previous snapshot or this one, never a mix. Saves of one
 *   conversation are applied in call order.
 */
export interface ConversationStore {
  /** The stored snapshot of `conversationId`, or `undefined` (see the contract above). */
  load(conversationId: string): Promise<ConversationSnapshot | undefined>;
  /** Replaces the stored snapshot of `snapshot.conversationId` atomically; rejects with `SdkError`. */
  save(snapshot: ConversationSnapshot): Promise<void>;
  /** Forgets the stored snapshot of `conversationId` (nothing stored is fine). */
  delete?(conversationId: string): Promise<void>;
}

/** What a store reports when it moved an unusable entry aside during `load`. */
export interface ConversationStoreWarning {
  conversationId: string;
  /** What was wrong and where it went, in one sentence a user can act on. */
  message: string;
  /** Where the entry now is (a file path or a storage key); absent when moving it failed. */
  movedTo?: string;
  /** The underlying error, when there was one. */
  cause?: unknown;
}

/** Options every store adapter accepts. */
export interface ConversationStoreOptions {
  /** Receives load-time warnings. Default: `console.warn(warning.message)`. */
  onWarning?: (warning: ConversationStoreWarning) => void;
}
