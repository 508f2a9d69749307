import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import type { ModelMessage, ModelUsage } from "./model/provider.js";

/** Everything needed to resume a session after a restart (§2.1: storage_directory + cascade_id). */
export interface StoredSession {
  version: 1;
  cascadeId: string;
  createdAt: string;
  updatedAt: string;
  /** Final state of each step of the main trajectory, as protobuf JSON `StepUpdate`s. */
  history: JsonValue[];
  /** The model-facing transcript (after compactions). */
  transcript: ModelMessage[];
  /** Cumulative usage of the session (§14). */
  usage: ModelUsage;
}

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

/**
 * One JSON file per cascade id under `directory` (`<id>.json`), written atomically (temporary
 * file + rename) so a crash mid-write never leaves a torn session.
 */
export function createFileSessionStore(directory: string): SessionStore {
  const root = path.resolve(directory);
  const chains = new Map<string, Promise<void>>();
  const fileOf = (id: string): string => {
    if (!CASCADE_ID_PATTERN.test(id)) throw new StorageError(`cascade id ${JSON.stringify(id)} is not usable as a session file name`);
    return path.join(root, `${id}.json`);
  };
  return {
    location: root,
    async load(cascadeId) {
      let text: string;
      try {
        text = await readFile(fileOf(cascadeId), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw new StorageError(`cannot read session ${cascadeId}: ${(error as Error).message}`);
      }
      try {
        const parsed = JSON.parse(text) as StoredSession;
        if (parsed.version !== 1 || parsed.cascadeId !== cascadeId || !Array.isArray(parsed.history)) throw new Error("unexpected content");
        return parsed;
      } catch (error) {
        throw new StorageError(`session file ${fileOf(cascadeId)} is corrupt (${(error as Error).message}); move it away to start over`);
      }
    },
    save(session) {
      const file = fileOf(session.cascadeId);
      const previous = chains.get(session.cascadeId) ?? Promise.resolve();
      const next = previous.catch(() => {}).then(async () => {
        await mkdir(root, { recursive: true });
        const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        try {
          await writeFile(temporary, JSON.stringify(session), "utf8");
          await rename(temporary, file);
        } catch (error) {
          await unlink(temporary).catch(() => {});
          throw error;
        }
      });
      chains.set(session.cascadeId, next);
      void next.finally(() => {
        if (chains.get(session.cascadeId) === next) chains.delete(session.cascadeId);
      }).catch(() => {});
      return next;
    },
  };
}

/** Sessions kept in memory: resumable for the life of the process only. */
export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, string>();
  return {
    location: "memory",
    async load(cascadeId) {
      const text = sessions.get(cascadeId);
      return text === undefined ? undefined : (JSON.parse(text) as StoredSession);
    },
    async save(session) {
      sessions.set(session.cascadeId, JSON.stringify(session));
    },
  };
}
