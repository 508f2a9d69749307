import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  openExactDirectory,
  openWorkspaceFile,
  pinDirectory,
  readRegularFileIn,
  replaceContents,
  useProcFdForTesting,
} from "./workspace-fs.js";
import { createWorkspaceRoots, type WorkspaceRoots } from "./workspace-paths.js";

// The rules of workspace-fs.ts on real files, in both modes: through /proc/self/fd (Linux) and
// the portable fallback. The end-to-end suites (e2e/fs-*.test.ts) drive the same code through
// the harness; the descriptor-pinning guarantee under a swap is shown here deterministically.

for (const mode of ["proc", "fallback"] as const) {
  describe(`workspace-fs (${mode === "proc" ? "/proc/self/fd" : "portable fallback"})`, () => {
    let root: string;
    let ws: string;
    let workspace: WorkspaceRoots;
    beforeAll(async () => {
      useProcFdForTesting(mode === "proc" ? undefined : false);
      root = await realpath(await mkdtemp(path.join(tmpdir(), `harness-wsfs-${mode}-`)));
      ws = path.join(root, "ws");
      await mkdir(path.join(ws, "d"), { recursive: true });
      await mkdir(path.join(root, "outside"));
      await writeFile(path.join(ws, "d", "f.txt"), "inside");
      await writeFile(path.join(root, "outside", "secret.txt"), "secret");
      await symlink("../outside/new.txt", path.join(ws, "dangling"));
      await symlink("../outside", path.join(ws, "out"));
      execFileSync("mkfifo", [path.join(ws, "fifo")]);
      workspace = await createWorkspaceRoots([ws]);
    });
    afterAll(async () => {
      useProcFdForTesting(undefined);
      await rm(root, { recursive: true, force: true });
    });
    afterEach(async () => {
      expect(await readdir(path.join(root, "outside"))).toEqual(["secret.txt"]);
    });

    it("creates files, making parents through checked directories", async () => {
      const file = await openWorkspaceFile(workspace, path.join(ws, "a", "b", "c.txt"), "a/b/c.txt", {
        access: "write",
        create: "exclusive",
        makeParents: true,
      });
      await replaceContents(file.handle, Buffer.from("long contents"));
      await replaceContents(file.handle, Buffer.from("short"));
      await file.handle.close();
      expect(file).toMatchObject({ created: true, real: path.join(ws, "a", "b", "c.txt") });
      expect(await readFile(path.join(ws, "a", "b", "c.txt"), "utf8")).toBe("short");
      await expect(
        openWorkspaceFile(workspace, path.join(ws, "a", "b", "c.txt"), "c", { access: "write", create: "exclusive" }),
      ).rejects.toThrow("already exists");
    });

    it("never creates or writes through a symlink as the last name, dangling or not", async () => {
      for (const create of ["exclusive", "allowed"] as const) {
        await expect(
          openWorkspaceFile(workspace, path.join(ws, "dangling"), "dangling", { access: "write", create }),
        ).rejects.toThrow("is a symbolic link");
      }
      await expect(
        openWorkspaceFile(workspace, path.join(ws, "dangling"), "dangling", { access: "read-write" }),
      ).rejects.toThrow("is a symbolic link");
    });

    it("refuses a parent that leads out, and does not make directories there", async () => {
      await expect(
        openWorkspaceFile(workspace, path.join(ws, "out", "x", "new.txt"), "out/x/new.txt", {
          access: "write",
          create: "exclusive",
          makeParents: true,
        }),
      ).rejects.toThrow("outside the workspace");
      await expect(pinDirectory(workspace, path.join(ws, "out"), "out")).rejects.toThrow("outside the workspace");
      await expect(pinDirectory(workspace, path.join(root, "outside"), "outside")).rejects.toThrow(
        "outside the workspace",
      );
    });

    it("refuses FIFOs and directories without blocking, and skips them when reading in a pinned directory", async () => {
      await expect(openWorkspaceFile(workspace, path.join(ws, "fifo"), "fifo", { access: "read" })).rejects.toThrow(
        "is not a regular file (a FIFO)",
      );
      await expect(
        openWorkspaceFile(workspace, path.join(ws, "fifo"), "fifo", { access: "write", create: "allowed" }),
      ).rejects.toThrow("is not a regular file (a FIFO)");
      await expect(openWorkspaceFile(workspace, path.join(ws, "d"), "d", { access: "read" })).rejects.toThrow(
        "is a directory",
      );
      await expect(openWorkspaceFile(workspace, ws, ".", { access: "write", create: "allowed" })).rejects.toThrow(
        "is a directory",
      );
      const pinned = await pinDirectory(workspace, ws, ".");
      try {
        expect(await readRegularFileIn(pinned, "fifo", 100)).toBeUndefined();
        expect(await readRegularFileIn(pinned, "dangling", 100)).toBeUndefined();
        expect(await readRegularFileIn(pinned, "d", 100)).toBeUndefined();
      } finally {
        await pinned.close();
      }
    });

    it("lets containment off reach outside, still refusing special files", async () => {
      const open = await createWorkspaceRoots([ws], false);
      const file = await openWorkspaceFile(open, path.join(root, "outside", "secret.txt"), "secret", {
        access: "read",
      });
      await file.handle.close();
      expect(file.real).toBe(path.join(root, "outside", "secret.txt"));
      await expect(openWorkspaceFile(open, "/dev/null", "/dev/null", { access: "read" })).rejects.toThrow(
        "(a character device)",
      );
    });

    it("openExactDirectory refuses a directory that is no longer where the walk found it", async () => {
      await rename(path.join(ws, "d"), path.join(ws, "d-moved"));
      await symlink("../outside", path.join(ws, "d"));
      try {
        expect(await openExactDirectory(path.join(ws, "d"))).toBeUndefined();
      } finally {
        await rm(path.join(ws, "d"));
        await rename(path.join(ws, "d-moved"), path.join(ws, "d"));
      }
      const same = await openExactDirectory(path.join(ws, "d"));
      expect(same?.real).toBe(path.join(ws, "d"));
      await same?.close();
    });

    if (mode === "proc") {
      it("a pinned directory stays the directory that was checked when its path is swapped for a link", async () => {
        const pinned = await pinDirectory(workspace, path.join(ws, "d"), "d");
        await rename(path.join(ws, "d"), path.join(ws, "d-moved"));
        await symlink("../outside", path.join(ws, "d"));
        try {
          expect(await readRegularFileIn(pinned, "f.txt", 100)).toEqual(Buffer.from("inside"));
          expect(await readRegularFileIn(pinned, "secret.txt", 100)).toBeUndefined();
        } finally {
          await pinned.close();
          await rm(path.join(ws, "d"));
          await rename(path.join(ws, "d-moved"), path.join(ws, "d"));
        }
      });
    }
  });
}
