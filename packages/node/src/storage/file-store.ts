import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import {
  ErrorCode,
  SdkError,
  type ConversationSnapshot,
  type ConversationStore,
  type ConversationStoreOptions,
} from "@antigravity-ts/sdk";
import {
  KeyedSerializer,
  assertStorableConversationId,
  encodeSnapshot,
  loadOrMoveAside,
  reportWarning,
} from "@antigravity-ts/sdk/storage";
import { errnoCode } from "../subprocess/spawn-errors.js";
import { TEMP_FILE, movedAsideName, snapshotFileName } from "./file-names.js";
import { errorText } from "@antigravity-ts/sdk/internal";

/** Options of {@link createFileConversationStore}. */
export interface FileConversationStoreOptions extends ConversationStoreOptions {
  /** Largest snapshot file `load` reads; a bigger one is moved aside. Default 256 MiB. */
  maxFileBytes?: number;
}

/** A {@link ConversationStore} in a directory, one JSON file per conversation. */
export interface FileConversationStore extends ConversationStore {
  /** The directory as given. */
  readonly directory: string;
  /** The file that holds (or will hold) the snapshot of `conversationId`. */
  pathOf(conversationId: string): Promise<string>;
  delete(conversationId: string): Promise<void>;
}

/** Identity of the directory entry `load` judged, so it moves aside that entry and no newer one. */
interface EntryIdentity {
  dev: number;
  ino: number;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Keeps conversations as JSON files in `directory` (created with mode 0700 when missing; a
 * symbolic link to a directory is resolved once, at first use, so re-pointing it later does not
 * move where the store writes). The file of an id is `<id>.json` for plain lower-case ids and
 * `~<sha-256>.json` for any other, so no id reaches outside the directory.
 *
 * - `save` writes a temporary file beside the target (`O_EXCL | O_NOFOLLOW`, mode 0600), fsyncs
 *   it, renames it over the target and fsyncs the directory: a crash at any point leaves the old
 *   or the new snapshot, and concurrent saves (from this process or others) never interleave.
 *   The rename replaces a symbolic link or FIFO at the target instead of writing through it; a
 *   directory there is moved aside first.
 * - `load` opens with `O_NOFOLLOW | O_NONBLOCK` and reads only a regular file: a symbolic link
 *   (dangling or not), directory, FIFO, socket, oversized or corrupt file is moved aside to
 *   `<name>.corrupt-<time>-<hex>` with a warning, and `load` gives `undefined`.
 *
 * @example
 * const store = createFileConversationStore(".conversations");
 * const agent = await Agent.builder().conversationStore(store).conversationId(id).allowAll().build().start();
 */
export function createFileConversationStore(
  directory: string,
  options: FileConversationStoreOptions = {},
): FileConversationStore {
  const maxBytes = options.maxFileBytes ?? 256 * 1024 * 1024;
  const serializer = new KeyedSerializer();
  let resolved: Promise<string> | undefined;
  const root = (): Promise<string> => {
    resolved ??= resolveDirectory(directory).catch((error: unknown) => {
      resolved = undefined; // a later call may find the directory fixed
      throw error;
    });
    return resolved;
  };

  const store: FileConversationStore = {
    directory,
    async pathOf(conversationId) {
      assertStorableConversationId(conversationId);
      return path.join(await root(), snapshotFileName(conversationId));
    },
    async load(conversationId) {
      assertStorableConversationId(conversationId);
      const name = snapshotFileName(conversationId);
      let dir: string;
      try {
        dir = await root();
      } catch (error) {
        reportWarning(options, {
          conversationId,
          cause: error,
          message: `${(error as Error).message}; conversation ${conversationId} starts empty`,
        });
        return undefined;
      }
      const file = path.join(dir, name);
      return serializer.run(name, () =>
        loadOrMoveAside<EntryIdentity | undefined>(
          conversationId,
          {
            where: file,
            read: () => readSnapshotFile(file, maxBytes),
            moveAside: (seen) => moveAside(file, seen ?? undefined),
          },
          options,
        ),
      );
    },
    async save(snapshot: ConversationSnapshot) {
      const text = encodeSnapshot(snapshot);
      const name = snapshotFileName(snapshot.conversationId);
      const dir = await root();
      await serializer.run(name, () =>
        writeAtomically(dir, name, text, (message) =>
          reportWarning(options, { conversationId: snapshot.conversationId, message }),
        ),
      );
    },
    async delete(conversationId) {
      assertStorableConversationId(conversationId);
      const name = snapshotFileName(conversationId);
      const dir = await root();
      await serializer.run(name, async () => {
        try {
          await unlink(path.join(dir, name));
        } catch (error) {
          if (errnoCode(error) !== "ENOENT")
            throw fileError(`cannot delete conversation ${conversationId} at ${path.join(dir, name)}`, error);
        }
      });
    },
  };
  return store;
}

/** Creates the directory if needed, resolves it once, checks it is a directory, and sweeps temp files of dead processes. */
async function resolveDirectory(directory: string): Promise<string> {
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const real = await realpath(directory);
    if (!(await stat(real)).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    await sweepTempFiles(real);
    return real;
  } catch (error) {
    const link = await lstat(directory).catch(() => undefined);
    if (link?.isSymbolicLink() === true && errnoCode(error) === "ENOENT") {
      throw fileError(
        `conversation store directory ${directory} is unusable: it is a symbolic link to a missing directory (create its target or remove the link)`,
        undefined,
      );
    }
    throw fileError(`conversation store directory ${directory} is unusable`, error);
  }
}

/** Opens without following links or blocking on FIFOs, and reads only a regular file. */
async function readSnapshotFile(
  file: string,
  maxBytes: number,
): Promise<
  { value: string; token: EntryIdentity } | { problem: string; token: EntryIdentity | undefined } | undefined
> {
  let handle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined;
    const seen = await lstat(file).catch(() => undefined);
    if (seen === undefined) return undefined; // gone meanwhile
    return {
      problem: `it is ${describeEntry(seen)}, which cannot be opened as a snapshot (${errnoCode(error) ?? (error as Error).message})`,
      token: identity(seen),
    };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { problem: `it is ${describeEntry(info)}, not a regular file`, token: identity(info) };
    if (info.size > maxBytes)
      return { problem: `it is ${info.size} bytes, more than maxFileBytes (${maxBytes})`, token: identity(info) };
    return { value: await handle.readFile("utf8"), token: identity(info) };
  } finally {
    await handle.close();
  }
}

/** Renames the unusable entry aside, unless it was replaced since it was judged. */
async function moveAside(file: string, seen: EntryIdentity | undefined): Promise<string | undefined> {
  const now = await lstat(file).catch((error: unknown) => {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  });
  if (now === undefined) return undefined;
  if (seen !== undefined && (now.dev !== seen.dev || now.ino !== seen.ino))
    throw new Error("it was replaced while it was being read; load again");
  const aside = path.join(path.dirname(file), movedAsideName(path.basename(file), randomBytes(3).toString("hex")));
  await rename(file, aside);
  return aside;
}

/** Temp file + fsync + rename + directory fsync. */
async function writeAtomically(
  dir: string,
  name: string,
  text: string,
  warn: (message: string) => void,
): Promise<void> {
  const target = path.join(dir, name);
  const temp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, CREATE_FLAGS, 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (error) {
      if (!["EISDIR", "ENOTEMPTY", "EEXIST"].includes(errnoCode(error) ?? "")) throw error;
      // A directory where the snapshot belongs: keep it, aside, and put the snapshot in place.
      const aside = path.join(dir, movedAsideName(name, randomBytes(3).toString("hex")));
      await rename(target, aside);
      warn(`${target} was a directory, not a snapshot file; it was moved to ${aside}`);
      await rename(temp, target);
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw fileError(`cannot save the conversation to ${target}`, error);
  }
  await syncDirectory(dir);
}

/** Makes the rename durable (POSIX); platforms that cannot fsync a directory skip it. */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    await handle.sync();
  } catch {
    // Windows and some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}

/** Removes `.<name>.<pid>.<hex>.tmp` files whose writing process is gone (a crash mid-save). */
async function sweepTempFiles(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(TEMP_FILE.exec(name)?.[2]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    const file = path.join(dir, name);
    const info = await lstat(file).catch(() => undefined);
    if (info?.isFile() === true) await unlink(file).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) !== "ESRCH"; // EPERM: alive, another user's
  }
}

function identity(info: Stats): EntryIdentity {
  return { dev: info.dev, ino: info.ino };
}

function describeEntry(info: Stats): string {
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isBlockDevice() || info.isCharacterDevice()) return "a device";
  return "a file";
}

/** A Node file-system error as an `SdkError` saying what to do (STYLE.md: errnos are mapped in packages/node). */
function fileError(what: string, error: unknown): SdkError {
  if (error instanceof SdkError) return error;
  const code = errnoCode(error);
  const hint: Record<string, string> = {
    EACCES: "check the directory's permissions",
    EPERM: "check the directory's permissions",
    EROFS: "the file system is read-only: choose another directory",
    ENOSPC: "the disk is full: free some space",
    EDQUOT: "the disk quota is exhausted: free some space",
    ENOTDIR: "a path component is not a directory: choose another directory",
    EEXIST: "something that is not a directory is in the way: remove it or choose another directory",
    ELOOP: "a symbolic link points in a loop: fix or remove it",
    ENAMETOOLONG: "the path is too long: choose a shorter directory",
  };
  if (error === undefined) return new SdkError(ErrorCode.FailedPrecondition, what);
  const reason = errorText(error);
  return new SdkError(
    ErrorCode.FailedPrecondition,
    `${what}: ${reason}${code !== undefined && hint[code] !== undefined ? ` (${hint[code]})` : ""}`,
    { cause: error, details: { errno: code } },
  );
}
