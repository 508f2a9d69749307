import { parseConversationSnapshot } from "../conversation/conversation-snapshot.js";
import type { ConversationSnapshot } from "../conversation/conversation-snapshot.js";
import type { ConversationStoreOptions, ConversationStoreWarning } from "../conversation/conversation-store.js";
import { ErrorCode, SdkError } from "../errors.js";
import { errorText } from "../error-text.js";
import { definedProperties } from "../defined-properties.js";

/** Longest conversation id a store accepts (UTF-16 code units); harness ids are far shorter. */
export const MAX_STORED_CONVERSATION_ID_LENGTH = 256;

/**
 * Throws `InvalidArgument` unless `conversationId` is a non-empty string of at most
 * {@link MAX_STORED_CONVERSATION_ID_LENGTH} characters. Every adapter calls it first, so no store
 * ever sees an empty or absurd key; adapters that map ids to names (files) make them safe too.
 */
export function assertStorableConversationId(conversationId: unknown): asserts conversationId is string {
  if (
    typeof conversationId !== "string" ||
    conversationId === "" ||
    conversationId.length > MAX_STORED_CONVERSATION_ID_LENGTH
  ) {
    const got = typeof conversationId === "string" ? `${conversationId.length} characters` : typeof conversationId;
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a stored conversation needs an id of 1 to ${MAX_STORED_CONVERSATION_ID_LENGTH} characters, got ${got}`,
    );
  }
}

/**
 * Checks a snapshot before it is written (so a store never holds something `load` would move
 * aside) and returns it as JSON text. Throws `InvalidArgument` for an invalid snapshot or id.
 */
export function encodeSnapshot(snapshot: ConversationSnapshot): string {
  parseConversationSnapshot(snapshot);
  assertStorableConversationId(snapshot.conversationId);
  return JSON.stringify(snapshot);
}

/**
 * Decodes what a store holds (JSON text, or the object itself for structured storage) into the
 * snapshot of `conversationId`, or says why it cannot be used.
 */
export function decodeSnapshot(
  stored: unknown,
  conversationId: string,
): { snapshot: ConversationSnapshot } | { problem: string } {
  let value = stored;
  if (typeof stored === "string") {
    try {
      value = JSON.parse(stored) as unknown;
    } catch (error) {
      return { problem: `it is not JSON (${(error as Error).message})` };
    }
  }
  let snapshot: ConversationSnapshot;
  try {
    snapshot = parseConversationSnapshot(value);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (snapshot.conversationId !== conversationId) {
    return {
      problem: `it holds conversation ${JSON.stringify(snapshot.conversationId.slice(0, 80))}, not ${JSON.stringify(conversationId.slice(0, 80))}`,
    };
  }
  return { snapshot };
}

/** How a store reads one entry and moves it aside, for {@link loadOrMoveAside}. */
export interface StoredEntryAccess<Token> {
  /** Where the entry lives, for messages (a path or a key). */
  where: string;
  /**
   * The stored value, or why the entry cannot be used (e.g. "it is a directory"), each with a
   * token for `moveAside` (what was looked at); `undefined` when nothing is stored. May throw.
   */
  read(): Promise<{ value: unknown; token: Token } | { problem: string; token: Token } | undefined>;
  /** Moves the unusable entry aside and returns where it went, or `undefined` when it vanished meanwhile. May throw. */
  moveAside(token: Token | undefined): Promise<string | undefined>;
}

/**
 * The `load` half of the {@link ConversationStore} contract in one place: reads the entry,
 * decodes it, and when it cannot be read or decoded moves it aside, warns and returns
 * `undefined`. Never rejects.
 */
export async function loadOrMoveAside<Token>(
  conversationId: string,
  access: StoredEntryAccess<Token>,
  options: ConversationStoreOptions,
): Promise<ConversationSnapshot | undefined> {
  let problem: string;
  let cause: unknown;
  let token: Token | undefined;
  try {
    const entry = await access.read();
    if (entry === undefined) return undefined;
    token = entry.token;
    const decoded = "problem" in entry ? entry : decodeSnapshot(entry.value, conversationId);
    if ("snapshot" in decoded) return decoded.snapshot;
    problem = decoded.problem;
  } catch (error) {
    problem = `it cannot be read (${errorText(error)})`;
    cause = error;
  }
  let movedTo: string | undefined;
  try {
    movedTo = await access.moveAside(token);
    if (movedTo === undefined) return undefined; // it vanished meanwhile: nothing stored now
  } catch (error) {
    reportWarning(options, unusableWarning(conversationId, access.where, problem, { failed: error }));
    return undefined;
  }
  reportWarning(
    options,
    unusableWarning(conversationId, access.where, problem, { movedTo, ...definedProperties({ cause }) }),
  );
  return undefined;
}

/**
 * The warning a store reports for an unusable entry: what was wrong, and where it went (`movedTo`)
 * or why moving it failed (`failed`).
 */
export function unusableWarning(
  conversationId: string,
  where: string,
  problem: string,
  outcome: { movedTo: string; cause?: unknown } | { failed: unknown },
): ConversationStoreWarning {
  const head = `stored conversation ${conversationId} at ${where} is unusable: ${problem}.`;
  if ("failed" in outcome) {
    const reason = errorText(outcome.failed);
    return {
      conversationId,
      cause: outcome.failed,
      message: `${head} Moving it aside failed (${reason}); the conversation starts empty and the next save replaces it.`,
    };
  }
  const warning: ConversationStoreWarning = {
    conversationId,
    movedTo: outcome.movedTo,
    message: `${head} It was moved to ${outcome.movedTo}; the conversation starts empty.`,
  };
  if (outcome.cause !== undefined) warning.cause = outcome.cause;
  return warning;
}

/** Hands `warning` to the store's `onWarning`, or `console.warn`. A throwing handler is ignored. */
export function reportWarning(options: ConversationStoreOptions, warning: ConversationStoreWarning): void {
  try {
    if (options.onWarning !== undefined) options.onWarning(warning);
    else console.warn(warning.message);
  } catch {
    // A warning must never turn a load into a failure.
  }
}

/**
 * Runs `task` after every task queued before it under the same key, so saves (and loads that
 * move entries aside) of one conversation never overlap within a process.
 */
export class KeyedSerializer {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}
