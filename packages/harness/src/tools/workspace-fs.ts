import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { WorkspacePathError, insideAny, type WorkspaceRoots } from "./workspace-paths.js";

// File access of the built-in tools that holds however the file system changes while a call runs
// (issue 8 items 1, 3, 4). Three rules:
//
// 1. Check what was opened, not the path before opening. On Linux a descriptor's real path is
//    `readlink /proc/self/fd/N`; it is compared with the workspace roots after every open.
// 2. Pin the parent: a file is reached through a descriptor of its directory, walked down from
//    the workspace root one checked directory at a time, and opened as `/proc/self/fd/<dir>/<name>`
//    (Node has no openat; this path is resolved by the kernel against the directory the
//    descriptor holds, whatever its path has become). A swapped directory component therefore
//    cannot redirect an open or a create.
// 3. Never follow a symlink as the last component (O_NOFOLLOW; O_CREAT|O_EXCL never follows), and
//    never block in open(): anything that is not a regular file (FIFO, socket, device) is refused
//    by lstat before opening, and every open is O_NONBLOCK then checked again by fstat.
//
// Without /proc (macOS, BSD, a sandbox hiding it) the same calls fall back to opening by path and
// re-checking afterwards that realpath(path) still names the opened inode. That fallback detects
// a swap that is still in place, but not one made and undone between the open and the re-check:
// a create can then land outside and be unlinked only if the swap is still visible. docs/harness.md
// ("File-system containment") says so.

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** A directory held open by descriptor, checked to be inside the workspace. */
export interface PinnedDirectory {
  /** Real path of the directory when it was checked. */
  readonly real: string;
  /**
   * Where names in it are reached: `/proc/self/fd/N` (the held directory itself), or its real
   * path in the portable fallback. Valid until {@link close}.
   */
  readonly via: string;
  close(): Promise<void>;
}

/** A regular file opened and checked; the caller closes `handle`. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
  /** Real path of what was opened. */
  readonly real: string;
  /** True when this call created the file. */
  readonly created: boolean;
}

/** How {@link openWorkspaceFile} opens. */
export interface OpenFileOptions {
  access: "read" | "write" | "read-write";
  /** `never`: the file must exist; `exclusive`: it must not; `allowed`: either. */
  create?: "never" | "exclusive" | "allowed";
  /** Create missing parent directories (each one through its checked parent). */
  makeParents?: boolean;
}

/**
 * Opens the regular file `absolute` (a path from `resolveWorkspacePath`) through its pinned
 * parent directory. Refuses a symlink as the last component, anything that is not a regular
 * file, and anything whose descriptor turns out to be outside the workspace. `shown` names the
 * file in error messages.
 */
export async function openWorkspaceFile(
  workspace: WorkspaceRoots,
  absolute: string,
  shown: string,
  options: OpenFileOptions,
): Promise<OpenedFile> {
  if (workspace.roots.includes(absolute) || path.dirname(absolute) === absolute)
    throw new WorkspacePathError(`${shown} is a directory`);
  const create = options.create ?? "never";
  const directory = await pinDirectory(workspace, path.dirname(absolute), shown, {
    create: options.makeParents === true,
  });
  try {
    const target = path.join(directory.via, path.basename(absolute));
    const access = options.access === "read" ? O_RDONLY : options.access === "write" ? O_WRONLY : O_RDWR;
    let handle: FileHandle | undefined;
    if (create !== "never") {
      try {
        // O_EXCL with O_CREAT never follows a symlink, dangling or not: it fails with EEXIST.
        handle = await open(target, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666);
      } catch (error) {
        if (code(error) !== "EEXIST") throw fsError(error, shown);
        if (create === "exclusive") {
          await refuseNonRegular(target, shown);
          throw new WorkspacePathError(`${shown} already exists; pass overwrite: true to replace it, or use edit_file`);
        }
      }
    }
    const created = handle !== undefined;
    if (handle === undefined) {
      await refuseNonRegular(target, shown);
      handle = await open(target, access | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
        throw code(error) === "ELOOP" ? symlinkError(shown) : fsError(error, shown);
      });
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw notRegular(shown, stats);
      const real = await realPathOf(handle, target);
      checkInside(workspace, real, shown);
      return { handle, stats, real, created };
    } catch (error) {
      await handle.close();
      // Only the portable fallback can get here after creating outside: undo what it can.
      if (created) await unlink(target).catch(() => undefined);
      throw error;
    }
  } finally {
    await directory.close();
  }
}

/**
 * Opens the directory `absolute` by walking down from the workspace root that contains it (from
 * `/` when containment is off): each component is opened through its parent's descriptor and its
 * real path checked before the next step. Symlinks inside the workspace may be followed on the
 * way; the walk fails as soon as one leads out. With `create`, missing directories are made
 * through their checked parent (and a name that then turns out to be a symlink is refused).
 */
export async function pinDirectory(
  workspace: WorkspaceRoots,
  absolute: string,
  shown: string,
  options: { create?: boolean } = {},
): Promise<PinnedDirectory> {
  const start = workspace.containment
    ? workspace.roots.find((root) => insideAny([root], absolute))
    : path.parse(absolute).root;
  if (start === undefined)
    throw new WorkspacePathError(
      `${shown} is outside the workspace (${workspace.roots.join(", ")}); use a path inside it`,
    );
  let current = await openDirectory(start, start, shown, false);
  try {
    checkInside(workspace, current.real, shown);
    for (const name of path
      .relative(start, absolute)
      .split(path.sep)
      .filter((part) => part !== "")) {
      const next = await openDirectory(
        path.join(current.via, name),
        path.join(current.real, name),
        shown,
        options.create === true,
      );
      await current.close();
      current = next;
      checkInside(workspace, current.real, shown);
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

/**
 * Opens a directory met by a walk whose real path must be exactly `expectedReal` (the walk never
 * follows links): undefined when it is gone or was swapped for something else meanwhile.
 */
export async function openExactDirectory(expectedReal: string): Promise<PinnedDirectory | undefined> {
  const directory = await openDirectory(expectedReal, expectedReal, expectedReal, false, O_NOFOLLOW).catch(
    () => undefined,
  );
  if (directory === undefined || directory.real === expectedReal) return directory;
  await directory.close();
  return undefined;
}

/**
 * Reads at most `maxBytes + 1` bytes of the regular file `name` in a pinned directory (`via`
 * from {@link PinnedDirectory}); undefined when it is not a regular file (FIFOs, sockets,
 * devices and symlinks are skipped, never opened in blocking mode).
 */
export async function readRegularFileIn(
  directory: PinnedDirectory,
  name: string,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const target = path.join(directory.via, name);
  const before = await lstat(target).catch(() => undefined);
  if (before === undefined || !before.isFile() || before.size > maxBytes) return undefined;
  const handle = await open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const stats = await handle.stat();
    return stats.isFile() ? await readAtMost(handle, maxBytes) : undefined;
  } finally {
    await handle.close();
  }
}

/** Reads from the start of `handle`, at most `maxBytes + 1` bytes (one more tells "too big"). */
export async function readAtMost(handle: FileHandle, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) break;
  }
  return Buffer.concat(chunks, total);
}

/** Replaces the whole content of an open file: write from offset 0, then cut to length. */
export async function replaceContents(handle: FileHandle, data: Buffer): Promise<void> {
  for (let written = 0; written < data.length; ) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, written);
    written += bytesWritten;
  }
  await handle.truncate(data.length);
}

/** What `stats` describes, for messages: "a FIFO", "a socket", "a directory"… */
export function describeKind(stats: Stats): string {
  if (stats.isFile()) return "a regular file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "a special file";
}

async function openDirectory(
  target: string,
  real: string,
  shown: string,
  create: boolean,
  extraFlags = 0,
): Promise<PinnedDirectory> {
  const flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | extraFlags;
  let handle: FileHandle;
  try {
    handle = await open(target, flags);
  } catch (error) {
    if (!create || code(error) !== "ENOENT") throw directoryError(error, real, shown);
    await mkdir(target).catch((mkdirError: unknown) => {
      if (code(mkdirError) !== "EEXIST") throw fsError(mkdirError, shown);
    });
    // Made just now (or by someone else meanwhile): never follow a link that appeared in its place.
    handle = await open(target, flags | O_NOFOLLOW).catch(async (second: unknown) => {
      // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (or ELOOP): say which it is.
      if ((await lstat(target).catch(() => undefined))?.isSymbolicLink() === true) {
        throw new WorkspacePathError(
          `${path.basename(real)} (in ${shown}) is a symbolic link to a missing directory; the file tools do not create directories through links`,
        );
      }
      throw directoryError(second, real, shown);
    });
  }
  try {
    const actual = await realPathOf(handle, target);
    const via = (await procFdWorks()) ? fdPath(handle) : actual;
    return { real: actual, via, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The real path of an open descriptor: /proc/self/fd on Linux, else realpath rechecked by inode. */
async function realPathOf(handle: FileHandle, openedAs: string): Promise<string> {
  if (await procFdWorks()) {
    const real = await readlink(fdPath(handle));
    if (real.endsWith(" (deleted)") || !path.isAbsolute(real))
      throw new WorkspacePathError(
        `${path.basename(openedAs)} was removed or replaced while it was being opened; try again`,
      );
    return real;
  }
  const real = await realpath(openedAs);
  const [held, named] = await Promise.all([handle.stat(), stat(real)]);
  if (held.dev !== named.dev || held.ino !== named.ino)
    throw new WorkspacePathError(`${path.basename(openedAs)} was replaced while it was being opened; try again`);
  return real;
}

let procFd: Promise<boolean> | undefined;

/** Tests only: force the portable fallback (`false`), or detect again (`undefined`). */
export function useProcFdForTesting(enabled: boolean | undefined): void {
  procFd = enabled === undefined ? undefined : Promise.resolve(enabled);
}

/** Whether /proc/self/fd names descriptors by their real paths here (tried once). */
function procFdWorks(): Promise<boolean> {
  procFd ??= (async () => {
    const handle = await open("/", O_RDONLY | O_DIRECTORY).catch(() => undefined);
    if (handle === undefined) return false;
    try {
      return (await readlink(fdPath(handle))) === "/";
    } catch {
      return false;
    } finally {
      await handle.close();
    }
  })();
  return procFd;
}

function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

function checkInside(workspace: WorkspaceRoots, real: string, shown: string): void {
  if (workspace.containment && !insideAny(workspace.roots, real)) {
    throw new WorkspacePathError(
      `${shown} resolves to ${real}, outside the workspace (${workspace.roots.join(", ")}); use a path inside it`,
    );
  }
}

/** Refuses, before any open, a name that is a symlink or not a regular file (missing is fine). */
async function refuseNonRegular(target: string, shown: string): Promise<void> {
  const stats = await lstat(target).catch(() => undefined);
  if (stats === undefined || stats.isFile()) return;
  if (stats.isSymbolicLink()) throw symlinkError(shown);
  throw notRegular(shown, stats);
}

function notRegular(shown: string, stats: Stats): WorkspacePathError {
  if (stats.isDirectory()) return new WorkspacePathError(`${shown} is a directory; use list_directory`);
  return new WorkspacePathError(
    `${shown} is not a regular file (${describeKind(stats)}); the file tools read and write regular files only`,
  );
}

function symlinkError(shown: string): WorkspacePathError {
  return new WorkspacePathError(
    `${shown} is a symbolic link; the file tools do not write through links (or read through one that changed meanwhile): use the path it points to`,
  );
}

function directoryError(error: unknown, real: string, shown: string): Error {
  if (code(error) === "ENOTDIR")
    return new WorkspacePathError(`${path.basename(real)} (in ${shown}) is not a directory`);
  if (code(error) === "ELOOP")
    return new WorkspacePathError(
      `${path.basename(real)} (in ${shown}) is a symbolic link that cannot be followed here`,
    );
  return fsError(error, shown);
}

function fsError(error: unknown, shown: string): Error {
  switch (code(error)) {
    case "ENOENT":
      return new WorkspacePathError(`${shown} does not exist`);
    case "ELOOP":
      return symlinkError(shown);
    case "EACCES":
    case "EPERM":
      return new WorkspacePathError(`${shown}: permission denied`);
    case "ENXIO":
      return new WorkspacePathError(`${shown} is not a regular file; the file tools read and write regular files only`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

function code(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}
