import type { Connection } from "../connection/connection.js";
import { ErrorCode, SdkError } from "../errors.js";
import type { UsageMetadata } from "../step.js";
import {
  CONVERSATION_SNAPSHOT_FORMAT,
  CONVERSATION_SNAPSHOT_VERSION,
  parseConversationSnapshot,
} from "./conversation-snapshot.js";
import type { ConversationSnapshot } from "./conversation-snapshot.js";
import type { ConversationState } from "./conversation-state.js";
import type { ConversationStore } from "./conversation-store.js";
import { USAGE_COUNTERS } from "../usage.js";

/** The snapshot of `state`, which belongs to the conversation `conversationId`. */
export function takeSnapshot(
  state: ConversationState,
  conversationId: string,
  connectionTotal: UsageMetadata,
): ConversationSnapshot {
  return {
    format: CONVERSATION_SNAPSHOT_FORMAT,
    version: CONVERSATION_SNAPSHOT_VERSION,
    conversationId,
    ...state.toData(connectionTotal),
  };
}

/**
 * Loads `snapshot` into `state` for a conversation over `connection`, then records the steps the
 * harness replayed on resume over it (protocol §5; see `ConversationState.replay`). Throws
 * `InvalidArgument` for an invalid snapshot and `FailedPrecondition` when the snapshot belongs to
 * another conversation than the connection's session.
 */
export function restoreSnapshot(state: ConversationState, connection: Connection, snapshot: unknown): void {
  // A copy through JSON: the caller's object is neither validated in place nor shared with history.
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(snapshot)) as unknown;
  } catch (error) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `invalid conversation snapshot: it is not JSON data (${(error as Error).message})`,
      { cause: error },
    );
  }
  const valid = parseConversationSnapshot(copy);
  if (valid.conversationId !== connection.conversationId) {
    throw new SdkError(
      ErrorCode.FailedPrecondition,
      `the snapshot is of conversation ${valid.conversationId} but the connection's session is ${connection.conversationId || "(none)"}: connect with conversationId ${valid.conversationId} (sessionContinuationMode "resume" or "createOrResume") to continue it`,
    );
  }
  const total = connection.usage.total;
  // The same harness session went on since the snapshot when its total did not go back (§14).
  const sameSession = USAGE_COUNTERS.every((key) => total[key] >= valid.usage.harnessTotal[key]);
  state.restore(valid, total, sameSession);
  // A resumed session replays its history (§5). A harness that replays none does not know these
  // steps (its storage is gone) and numbers new ones from 0 again: they must not overwrite them.
  if (connection.initialHistory.length === 0 && valid.steps.length > 0)
    connection.retireStepIds?.(valid.steps.map((step) => step.id));
  state.replay(connection.initialHistory);
}

/** What a conversation persists to, and where failures of its automatic saves go. */
export interface PersistenceOptions {
  store: ConversationStore;
  /** Receives failures of automatic saves (default `console.warn`); `conversation.save()` rejects instead. */
  onSaveError?: ((error: SdkError) => void) | undefined;
}

/**
 * Saves a conversation's snapshots in order, one at a time. Automatic saves coalesce: while one
 * runs, further requests collapse into one more save that takes its snapshot when it starts, so a
 * burst of turn ends writes the newest state once instead of every intermediate one.
 */
export class SnapshotSaver {
  readonly #options: PersistenceOptions;
  readonly #take: () => Promise<ConversationSnapshot>;
  /** The save running now, or the last one. */
  #running: Promise<void> = Promise.resolve();
  /** A save requested while one runs, not yet started. */
  #pending: Promise<void> | undefined;

  constructor(options: PersistenceOptions, take: () => Promise<ConversationSnapshot>) {
    this.#options = options;
    this.#take = take;
  }

  /** Requests an automatic save; a failure goes to `onSaveError`. */
  schedule(): void {
    void this.#enqueue().catch((error: unknown) => this.#report(SdkError.from(error)));
  }

  /** Saves the newest state after the saves before it; rejects with the store's error. */
  save(): Promise<void> {
    return this.#enqueue();
  }

  /** Resolves once every requested save has finished (failures were reported). */
  async settled(): Promise<void> {
    while (this.#pending !== undefined) await this.#pending.catch(() => undefined);
    await this.#running.catch(() => undefined);
  }

  #enqueue(): Promise<void> {
    this.#pending ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#pending = undefined;
        this.#running = this.#take().then((snapshot) => this.#options.store.save(snapshot));
        return this.#running;
      });
    return this.#pending;
  }

  #report(error: SdkError): void {
    try {
      if (this.#options.onSaveError !== undefined) this.#options.onSaveError(error);
      else console.warn(`could not save the conversation: ${error.message}`);
    } catch {
      // A reporting handler that throws must not break the conversation.
    }
  }
}
