import { randomBytes } from "node:crypto";
import { cp, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ErrorCode, parseConversationSnapshot, SdkError, type ConversationSnapshot } from "@antigravity-ts/sdk";
import { encodeSnapshot } from "@antigravity-ts/sdk/storage";
import { errnoCode } from "@antigravity-ts/node/internal";

/** The file `/save` and `/load` use when given none, in the working directory. */
export const DEFAULT_CONVERSATION_FILE = "antigravity-conversation.json";

/** A saved conversation: the SDK's snapshot, and where the harness's copy of the session is. */
export interface SavedConversation {
  snapshot: ConversationSnapshot;
  /** The harness's session storage saved beside the file (`<file>.harness`), when there is one. */
  harnessStorage: string | undefined;
}

/** The directory beside a saved conversation's file that holds the harness's session storage. */
export function harnessStorageOf(file: string): string {
  return `${path.resolve(file)}.harness`;
}

/** Largest file `/load` reads. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Writes `snapshot` (`conversation.snapshot()`, checked first) to `file` as JSON: a temporary file
 * beside it (mode 0600) renamed over it, so a crash leaves the old file or the new one. Returns
 * the absolute path. Rejects with `SdkError` `InvalidArgument` naming the file when it cannot be written.
 */
export async function writeConversationFile(file: string, snapshot: ConversationSnapshot): Promise<string> {
  const target = path.resolve(file);
  const text = encodeSnapshot(snapshot);
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    await writeFile(temporary, `${text}\n`, { mode: 0o600, flag: "wx" });
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `cannot write ${target} (${errnoCode(error) ?? (error as Error).message}); choose another file: /save <file>`,
      { cause: error },
    );
  }
  return target;
}

/**
 * Copies the harness's session storage directory (the harness must not be writing it: its
 * session stopped) to `<file>.harness`, replacing an older copy. Rejects like {@link writeConversationFile}.
 */
export async function copyHarnessStorage(storage: string, file: string): Promise<void> {
  const target = harnessStorageOf(file);
  try {
    await rm(target, { recursive: true, force: true });
    await cp(storage, target, { recursive: true, errorOnExist: false });
  } catch (error) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `cannot copy the harness's session to ${target} (${errnoCode(error) ?? (error as Error).message})`,
      { cause: error },
    );
  }
}

/** Copies a saved harness storage (see {@link copyHarnessStorage}) into the directory a harness is about to use. */
export async function restoreHarnessStorage(saved: string, storage: string): Promise<void> {
  try {
    await cp(saved, storage, { recursive: true, force: true });
  } catch (error) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `cannot copy the harness's session from ${saved} (${errnoCode(error) ?? (error as Error).message})`,
      { cause: error },
    );
  }
}

/**
 * Reads a conversation written by {@link writeConversationFile} (or any `conversation.snapshot()`
 * saved as JSON), and finds the harness's storage beside it. Rejects with `SdkError`: `NotFound`
 * when there is no such file, `InvalidArgument` when it is not a snapshot (naming the first problem).
 */
export async function readConversationFile(file: string): Promise<SavedConversation> {
  return { snapshot: await readSnapshot(file), harnessStorage: await directoryOrUndefined(harnessStorageOf(file)) };
}

async function directoryOrUndefined(directory: string): Promise<string | undefined> {
  const stats = await stat(directory).catch(() => undefined);
  return stats?.isDirectory() === true ? directory : undefined;
}

async function readSnapshot(file: string): Promise<ConversationSnapshot> {
  const target = path.resolve(file);
  let text: string;
  try {
    text = await readFile(target, "utf8");
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT")
      throw new SdkError(ErrorCode.NotFound, `there is no ${target}; /save <file> writes one`, { cause: error });
    throw new SdkError(ErrorCode.InvalidArgument, `cannot read ${target} (${code ?? (error as Error).message})`, {
      cause: error,
    });
  }
  if (text.length > MAX_FILE_BYTES)
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `${target} is larger than ${MAX_FILE_BYTES} bytes: not a saved conversation`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `${target} is not JSON (${(error as Error).message}): not a saved conversation`,
      { cause: error },
    );
  }
  try {
    return parseConversationSnapshot(value);
  } catch (error) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `${target} is not a saved conversation: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
