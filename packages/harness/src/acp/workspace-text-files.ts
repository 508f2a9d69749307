import type { AcpFileSystem } from "@antigravity-ts/sdk/acp";
import { openWorkspaceFile, readAtMost, replaceContents } from "../tools/workspace-fs.js";
import { createWorkspaceRoots, resolveWorkspacePath, WorkspacePathError } from "../tools/workspace-paths.js";

/** Options of {@link workspaceTextFiles}. */
export interface WorkspaceTextFilesOptions {
  /** Largest file read or written, in bytes. Default 10 MiB. */
  maxBytes?: number;
}

/**
 * An ACP client's `fs/read_text_file` and `fs/write_text_file` (`acpAgent({ fileSystem })`),
 * confined to `directories` with the reference harness's own file-tool checks
 * (tools/workspace-paths.ts, tools/workspace-fs.ts): a path must resolve inside a root (no `..`,
 * no absolute path elsewhere, no symlink leading out, checked again on the opened descriptor, so a
 * swap between check and open is caught); the last component is opened with O_NOFOLLOW; only
 * regular files (no FIFO, socket, device or directory); a write replaces the file's content in
 * place through its checked parent and creates missing parents only through checked directories.
 */
export async function workspaceTextFiles(
  directories: readonly string[],
  options: WorkspaceTextFilesOptions = {},
): Promise<AcpFileSystem> {
  const workspace = await createWorkspaceRoots(directories, true);
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  return {
    async readTextFile(path, range) {
      const absolute = await resolveWorkspacePath(workspace, path);
      const opened = await openWorkspaceFile(workspace, absolute, path, { access: "read" });
      let data: Buffer;
      try {
        data = await readAtMost(opened.handle, maxBytes);
      } finally {
        await opened.handle.close();
      }
      if (data.length > maxBytes) throw new WorkspacePathError(`${path} is larger than ${maxBytes} bytes`);
      const text = data.toString("utf8");
      if (range.line === undefined && range.limit === undefined) return text;
      const lines = text.split("\n");
      const start = Math.max(1, range.line ?? 1) - 1;
      return lines.slice(start, range.limit === undefined ? undefined : start + Math.max(0, range.limit)).join("\n");
    },
    async writeTextFile(path, content) {
      const data = Buffer.from(content, "utf8");
      if (data.length > maxBytes)
        throw new WorkspacePathError(`the content for ${path} is larger than ${maxBytes} bytes`);
      const absolute = await resolveWorkspacePath(workspace, path, { allowMissing: true, keepLastComponent: true });
      const opened = await openWorkspaceFile(workspace, absolute, path, {
        access: "write",
        create: "allowed",
        makeParents: true,
      });
      try {
        await replaceContents(opened.handle, data);
      } finally {
        await opened.handle.close();
      }
    },
  };
}
