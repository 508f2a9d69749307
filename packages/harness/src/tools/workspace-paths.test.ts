import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWorkspaceRoots,
  resolveWorkspacePath,
  WorkspacePathError,
  type WorkspaceRoots,
} from "./workspace-paths.js";

describe("resolveWorkspacePath", () => {
  let root: string;
  let ws: WorkspaceRoots;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), "harness-paths-")));
    await mkdir(path.join(root, "ws", "dir"), { recursive: true });
    await mkdir(path.join(root, "other"));
    await writeFile(path.join(root, "ws", "dir", "f.txt"), "x");
    await writeFile(path.join(root, "other", "secret"), "x");
    await symlink(path.join(root, "other"), path.join(root, "ws", "out"));
    await symlink(path.join(root, "ws", "dir"), path.join(root, "ws", "in"));
    await mkdir(path.join(root, "ws", "..hidden"));
    ws = await createWorkspaceRoots([path.join(root, "ws")]);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("resolves relative, absolute and file:// paths inside the workspace to real paths", async () => {
    const file = path.join(root, "ws", "dir", "f.txt");
    expect(await resolveWorkspacePath(ws, "dir/f.txt")).toBe(file);
    expect(await resolveWorkspacePath(ws, file)).toBe(file);
    expect(await resolveWorkspacePath(ws, pathToFileURL(file).href)).toBe(file);
    expect(await resolveWorkspacePath(ws, "in/f.txt")).toBe(file);
    expect(await resolveWorkspacePath(ws, "")).toBe(path.join(root, "ws"));
    expect(await resolveWorkspacePath(ws, "..hidden")).toBe(path.join(root, "ws", "..hidden"));
    expect(await resolveWorkspacePath(ws, "dir/../dir/f.txt")).toBe(file);
  });

  it("refuses escapes by '..', absolute paths and symlinks", async () => {
    await expect(resolveWorkspacePath(ws, "../other/secret")).rejects.toThrow(/is outside the workspace/);
    await expect(resolveWorkspacePath(ws, path.join(root, "other", "secret"))).rejects.toThrow(WorkspacePathError);
    await expect(resolveWorkspacePath(ws, "out/secret")).rejects.toThrow(/through a symlink/);
    await expect(resolveWorkspacePath(ws, "out/new-file", { allowMissing: true })).rejects.toThrow(/through a symlink/);
    await expect(resolveWorkspacePath(ws, "dir/missing.txt")).rejects.toThrow(/does not exist/);
  });

  it("allows new files under existing directories when asked", async () => {
    expect(await resolveWorkspacePath(ws, "dir/new/deeper.txt", { allowMissing: true })).toBe(
      path.join(root, "ws", "dir", "new", "deeper.txt"),
    );
  });

  it("lets WORKSPACE_CONTAINMENT_DISABLED reach outside", async () => {
    const open = await createWorkspaceRoots([path.join(root, "ws")], false);
    expect(await resolveWorkspacePath(open, "../other/secret")).toBe(path.join(root, "other", "secret"));
  });
});
