import { constants, type Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import { createLogger, type Logger } from "../log.js";
import type { ModelMessage, ModelUsage } from "../model/provider.js";
import type { SessionCalls } from "./budget.js";
import { emptyUsage } from "../model/usage.js";
import { readStoredSteps } from "./stored-steps.js";

/** Everything needed to resume a session after a restart (§2.1: storage_directory + cascade_id). */
export interface StoredSession {
  version: 1;
  cascadeId: string;
  createdAt: string;
  updatedAt: string;
  /** Final state of each step of the main trajectory, as protobuf JSON `StepUpdate`s. */
  history: JsonValue[];
  /** The model-facing transcript's hot zone (after compactions). */
  transcript: ModelMessage[];
  /** Summaries of compacted messages, oldest first, at most 3 (absent in older files). */
  summaries?: string[];
  /** The first real user prompt, kept apart once compacted (absent until then). */
  firstPrompt?: string;
  /** Cumulative usage of the session (§14); the token counts of `BudgetConfig`. */
  usage: ModelUsage;
  /** Model and tool calls of the session, for `BudgetConfig` (absent in older files: none). */
  calls?: SessionCalls;
}

/** Largest session file read; a bigger one is refused rather than exhausting memory. */
export const MAX_SESSION_FILE_BYTES = 256 * 1024 * 1024;

/** Where sessions are kept. */
export interface SessionStore {
  /** Shown in logs: a directory, or "memory". */
  readonly location: string;
  load(cascadeId: string): Promise<StoredSession | undefined>;
  save(session: StoredSession): Promise<void>;
}

/** A stored session that cannot be read. */
export class StorageError extends Error {
  override readonly name = "StorageError";
}

/** Ids usable as file names; other ids are refused at initialisation. */
export const CASCADE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** Options of {@link createFileSessionStore}. */
export interface FileSessionStoreOptions {
  /** Where the warning about a corrupt file goes; stderr by default. */
  log?: Logger;
}

/**
 * One JSON file per cascade id under `directory` (`<id>.json`), written atomically (temporary
 * file + rename) so a crash mid-write never leaves a torn session. A file that cannot be a
 * session (not JSON, wrong shape, a FIFO, a symlink, a directory) is moved aside on load and the
 * session starts empty; an unreadable one (permissions) or one over {@link MAX_SESSION_FILE_BYTES}
 * is refused with a {@link StorageError}.
 */
export function createFileSessionStore(directory: string, options: FileSessionStoreOptions = {}): SessionStore {
  const root = path.resolve(directory);
  const log = options.log ?? createLogger();
  /**
   * Seed 002: loading never fails on a corrupt file. It is renamed to `<id>.json.corrupt-<time>-<random>`
   * (kept for inspection, never overwritten), a warning goes to stderr, and the session starts empty.
   */
  const moveAside = async (file: string, cascadeId: string, problem: string): Promise<StoredSession> => {
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}`;
    try {
      await rename(file, aside);
    } catch (error) {
      throw new StorageError(
        `session file ${file} is corrupt (${problem}) and could not be moved aside (${(error as Error).message}); move it away to start over`,
      );
    }
    log.warn(
      `session file ${file} is corrupt (${problem}); moved it to ${path.basename(aside)} and starting session ${cascadeId} empty`,
    );
    return emptySession(cascadeId);
  };
  const chains = new Map<string, Promise<void>>();
  const fileOf = (id: string): string => {
    if (!CASCADE_ID_PATTERN.test(id))
      throw new StorageError(`cascade id ${JSON.stringify(id)} is not usable as a session file name`);
    return path.join(root, `${id}.json`);
  };
  return {
    location: root,
    async load(cascadeId) {
      const file = fileOf(cascadeId);
      let text: string;
      try {
        text = await readSessionFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        if (!(error instanceof NotASessionFile))
          throw new StorageError(`cannot read session ${cascadeId}: ${(error as Error).message}`);
        return moveAside(file, cascadeId, error.message);
      }
      try {
        const session = checkStoredSession(JSON.parse(text), cascadeId);
        await readStoredSteps(session.history); // throws what is wrong with a step
        return session;
      } catch (error) {
        return moveAside(file, cascadeId, (error as Error).message);
      }
    },
    save(session) {
      const file = fileOf(session.cascadeId);
      const previous = chains.get(session.cascadeId) ?? Promise.resolve();
      const next = previous
        .catch(() => {})
        .then(async () => {
          const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
          const text = JSON.stringify(session);
          try {
            // The directory is made when a write finds it missing: one thread-pool round trip less on
            // every other save, the first of a new session included (it precedes the init response).
            await writeFile(temporary, text, "utf8").catch(async (error: NodeJS.ErrnoException) => {
              if (error.code !== "ENOENT") throw error;
              await mkdir(root, { recursive: true });
              await writeFile(temporary, text, "utf8");
            });
            await rename(temporary, file);
          } catch (error) {
            await unlink(temporary).catch(() => {});
            throw error;
          }
        });
      chains.set(session.cascadeId, next);
      void next
        .finally(() => {
          if (chains.get(session.cascadeId) === next) chains.delete(session.cascadeId);
        })
        .catch(() => {});
      return next;
    },
  };
}

/** Sessions a memory store keeps by default (`--keep-ended-sessions`). */
export const DEFAULT_MEMORY_SESSIONS = 64;
/** How long a memory store keeps an untouched session by default (`--ended-session-ttl`): one hour. */
export const DEFAULT_MEMORY_SESSION_TTL_MS = 60 * 60 * 1000;

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Most sessions kept; the least recently saved or loaded goes first. Default {@link DEFAULT_MEMORY_SESSIONS}. */
  maxSessions?: number;
  /** A session not saved or loaded for this long is dropped. Default {@link DEFAULT_MEMORY_SESSION_TTL_MS}; 0 = no limit. */
  ttlMs?: number;
  /** Told about every session dropped, and why. */
  onEvict?: (cascadeId: string, reason: "count" | "age") => void;
}

/**
 * Sessions kept in memory: resumable for the life of the process only, and only while they are
 * among the `maxSessions` most recently used and younger than `ttlMs` (issue 8 item 7: a
 * listening harness without storage must not grow without bound). Evicting a session that is
 * still connected is harmless: it is saved again, whole, at its next turn and when it ends.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const maxSessions = options.maxSessions ?? DEFAULT_MEMORY_SESSIONS;
  const ttlMs = options.ttlMs ?? DEFAULT_MEMORY_SESSION_TTL_MS;
  // Map order is use order: a touched entry is deleted and set again.
  const sessions = new Map<string, { text: string; touched: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const evict = (cascadeId: string, reason: "count" | "age"): void => {
    sessions.delete(cascadeId);
    options.onEvict?.(cascadeId, reason);
  };
  const expire = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (ttlMs <= 0) return;
    const now = Date.now();
    for (const [cascadeId, entry] of sessions) {
      if (now - entry.touched < ttlMs) break;
      evict(cascadeId, "age");
    }
    // Wake up when the oldest expires, so memory is freed without traffic; never keeps the process alive.
    const oldest = sessions.values().next().value;
    if (oldest !== undefined) (timer = setTimeout(expire, oldest.touched + ttlMs - now)).unref?.();
  };
  const touch = (cascadeId: string, text: string): void => {
    sessions.delete(cascadeId);
    sessions.set(cascadeId, { text, touched: Date.now() });
    for (const [oldest] of sessions) {
      if (sessions.size <= maxSessions) break;
      evict(oldest, "count");
    }
    expire();
  };
  // Short: it ends the close reason of a refused resume (≤ 123 bytes with the id).
  return {
    location: `memory (keeps the last ${maxSessions}${ttlMs > 0 ? ` for ${Math.round(ttlMs / 1000)} s` : ""})`,
    async load(cascadeId) {
      expire();
      const entry = sessions.get(cascadeId);
      if (entry === undefined) return undefined;
      touch(cascadeId, entry.text);
      return JSON.parse(entry.text) as StoredSession;
    },
    async save(session) {
      touch(session.cascadeId, JSON.stringify(session));
    },
  };
}

/** An empty session with `cascadeId`, as a corrupt file leaves it. */
function emptySession(cascadeId: string): StoredSession {
  const now = new Date().toISOString();
  return { version: 1, cascadeId, createdAt: now, updatedAt: now, history: [], transcript: [], usage: emptyUsage() };
}

/** The path is there but is no regular file (a FIFO, directory, socket or symlink). */
class NotASessionFile extends Error {}

/**
 * Reads a session file without following a symlink as its last component and without blocking
 * on a FIFO (opened non-blocking, then checked to be a regular file before reading).
 */
async function readSessionFile(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new NotASessionFile("it is a symbolic link");
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotASessionFile(`it is ${describeKind(stats)}, not a regular file`);
    if (stats.size > MAX_SESSION_FILE_BYTES)
      throw new Error(
        `the file has ${stats.size} bytes, more than the ${MAX_SESSION_FILE_BYTES} a session file may have`,
      );
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  return "a special file";
}

/** Checks the shape of a parsed session file, all but its steps (readStoredSteps); throws what is wrong. */
export function checkStoredSession(value: unknown, cascadeId: string): StoredSession {
  const session = record(value, "the file");
  if (session["version"] !== 1) throw new Error(`version ${JSON.stringify(session["version"])} is not 1`);
  if (session["cascadeId"] !== cascadeId) throw new Error(`it holds session ${JSON.stringify(session["cascadeId"])}`);
  for (const key of ["createdAt", "updatedAt"])
    if (typeof session[key] !== "string") throw new Error(`${key} is not a string`);
  array(session["history"], "history"); // its steps are checked by readStoredSteps
  array(session["transcript"], "transcript").forEach((message, i) => checkMessage(message, `transcript[${i}]`));
  if (session["summaries"] !== undefined)
    array(session["summaries"], "summaries").forEach((s, i) => text(s, `summaries[${i}]`));
  if (session["firstPrompt"] !== undefined) text(session["firstPrompt"], "firstPrompt");
  counts(session["usage"], "usage", [
    "promptTokens",
    "candidatesTokens",
    "thoughtsTokens",
    "cachedTokens",
    "totalTokens",
  ]);
  if (session["calls"] !== undefined) counts(session["calls"], "calls", ["modelCalls", "toolCalls"]);
  return session as unknown as StoredSession;
}

function checkMessage(value: unknown, at: string): void {
  const message = record(value, at);
  switch (message["role"]) {
    case "user":
      text(message["text"], `${at}.text`);
      checkMedia(message["media"], `${at}.media`);
      return;
    case "model":
      text(message["text"], `${at}.text`);
      if (message["thinking"] !== undefined) text(message["thinking"], `${at}.thinking`);
      array(message["toolCalls"], `${at}.toolCalls`).forEach((call, i) => {
        const c = record(call, `${at}.toolCalls[${i}]`);
        text(c["id"], `${at}.toolCalls[${i}].id`);
        text(c["name"], `${at}.toolCalls[${i}].name`);
        record(c["args"], `${at}.toolCalls[${i}].args`);
      });
      return;
    case "tool":
      array(message["results"], `${at}.results`).forEach((result, i) => {
        const r = record(result, `${at}.results[${i}]`);
        text(r["id"], `${at}.results[${i}].id`);
        text(r["name"], `${at}.results[${i}].name`);
        record(r["response"], `${at}.results[${i}].response`);
        checkMedia(r["media"], `${at}.results[${i}].media`);
      });
      return;
    default:
      throw new Error(`${at}.role ${JSON.stringify(message["role"])} is not user, model or tool`);
  }
}

/** Optional inline media (model/media.ts): `[{mimeType, data (base64), description?}]`. */
function checkMedia(value: unknown, at: string): void {
  if (value === undefined) return;
  array(value, at).forEach((item, i) => {
    const media = record(item, `${at}[${i}]`);
    text(media["mimeType"], `${at}[${i}].mimeType`);
    text(media["data"], `${at}[${i}].data`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(media["data"] as string)) throw new Error(`${at}[${i}].data is not base64`);
    if (media["description"] !== undefined) text(media["description"], `${at}[${i}].description`);
  });
}

function record(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${at} is not an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${at} is not an array`);
  return value;
}

function text(value: unknown, at: string): void {
  if (typeof value !== "string") throw new Error(`${at} is not a string`);
}

function counts(value: unknown, at: string, keys: readonly string[]): void {
  const object = record(value, at);
  for (const key of keys) {
    const n = object[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw new Error(`${at}.${key} is not a count`);
  }
}
