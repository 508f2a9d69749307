import { lstat, mkdir, readdir, readFile, readlink, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { finalSteps, harnessConfig, TestClient, type Frame } from "../test-support/ws-client.js";

// Issue 8 items 1 and 11 through the real harness: the scripted model calls the file tools on
// symlinks planted in the workspace; nothing may be written outside it, and list_directory shows
// links as links.

const SCRIPT = {
  turns: [
    {
      match: "write through links",
      calls: [
        {
          toolCalls: [
            { name: "create_file", args: { file_path: "dangling.txt", contents: "x" } },
            { name: "create_file", args: { file_path: "dangling-over.txt", contents: "x", overwrite: true } },
            { name: "create_file", args: { file_path: "chain.txt", contents: "x" } },
            { name: "create_file", args: { file_path: "chain.txt", contents: "x", overwrite: true } },
            { name: "create_file", args: { file_path: "parent-link/deeper/new.txt", contents: "x" } },
            { name: "create_file", args: { file_path: "dangling-dir/new.txt", contents: "x" } },
            { name: "run_command", args: { CommandLine: "ln -s ../outside/by-command.txt by-command.txt" } },
            { name: "create_file", args: { file_path: "by-command.txt", contents: "x" } },
            { name: "create_file", args: { file_path: "by-command.txt", contents: "x", overwrite: true } },
            { name: "edit_file", args: { file_path: "to-outside.txt", old_string: "outside", new_string: "pwned" } },
            { name: "edit_file", args: { file_path: "dangling.txt", old_string: "x", new_string: "y" } },
            { name: "edit_file", args: { file_path: "inside-link.txt", old_string: "inside", new_string: "changed" } },
            { name: "create_file", args: { file_path: "inside-link.txt", contents: "x", overwrite: true } },
            { name: "create_file", args: { file_path: "made/by/model.txt", contents: "fine" } },
          ],
        },
        { text: "done" },
      ],
    },
    {
      match: "workspace link",
      calls: [
        {
          toolCalls: [
            { name: "create_file", args: { file_path: "dangling.txt", contents: "x", overwrite: true } },
            { name: "create_file", args: { file_path: "ok.txt", contents: "ok" } },
          ],
        },
        { text: "done" },
      ],
    },
    {
      match: "list",
      calls: [
        { toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] },
        { text: "listing: {{results.list_directory}}" },
      ],
    },
  ],
};

/** What the outside directory holds before the tests: every test checks it is unchanged. */
const OUTSIDE_FILES = { "big.bin": "B".repeat(12_345), "existing.txt": "outside" };

describe("file tools never write through a symlink out of the workspace (issue 8 items 1, 11)", () => {
  const fixture = useHarnessFixture({
    name: "fs-symlinks",
    script: SCRIPT,
    prepare: async (root, ws) => {
      const outside = path.join(root, "outside");
      await mkdir(outside);
      for (const [name, contents] of Object.entries(OUTSIDE_FILES)) await writeFile(path.join(outside, name), contents);
      await symlink("../outside/new.txt", path.join(ws, "dangling.txt"));
      await symlink("../outside/over.txt", path.join(ws, "dangling-over.txt"));
      await symlink("chain-middle", path.join(ws, "chain.txt"));
      await symlink("../outside/chain.txt", path.join(ws, "chain-middle"));
      await symlink("../outside", path.join(ws, "parent-link"));
      await symlink("../outside/missing-dir", path.join(ws, "dangling-dir"));
      await symlink("../outside/existing.txt", path.join(ws, "to-outside.txt"));
      await writeFile(path.join(ws, "inside.txt"), "inside");
      await symlink("inside.txt", path.join(ws, "inside-link.txt"));
      await symlink("../outside/big.bin", path.join(ws, "big-link"));
      await symlink("../outside", path.join(ws, "dir-link"));
      await symlink("ws", path.join(root, "ws-link"));
    },
  });

  const outsideUnchanged = async (): Promise<void> => {
    const outside = path.join(fixture.root, "outside");
    expect((await readdir(outside)).sort()).toEqual(Object.keys(OUTSIDE_FILES).sort());
    for (const [name, contents] of Object.entries(OUTSIDE_FILES))
      expect(await readFile(path.join(outside, name), "utf8")).toBe(contents);
  };

  it("create_file and edit_file refuse dangling links, chains, links made by run_command and links in parent components", async () => {
    const client = await fixture.connect();
    client.prompt("write through links");
    const final = finalSteps(await client.turn());
    const tools = final.filter((s: Frame) => s.createFile !== undefined || s.editFile !== undefined);
    expect(tools).toHaveLength(13);
    const [
      dangling,
      danglingOver,
      chain,
      chainOver,
      parentLink,
      danglingDir,
      byCommand,
      byCommandOver,
      editOutside,
      editDangling,
      editInsideLink,
      overInsideLink,
      ok,
    ] = tools;
    // A link as the last name is never written through, wherever it points.
    for (const step of [
      dangling,
      danglingOver,
      chain,
      chainOver,
      byCommand,
      byCommandOver,
      editOutside,
      editInsideLink,
      overInsideLink,
    ]) {
      expect(step).toMatchObject({ state: "STATE_ERROR" });
      expect(step?.["errorMessage"]).toMatch(/is a symbolic link; the file tools do not write through links/);
    }
    expect(parentLink).toMatchObject({ state: "STATE_ERROR" });
    expect(parentLink?.["errorMessage"]).toMatch(/outside the workspace/);
    expect(danglingDir).toMatchObject({ state: "STATE_ERROR" });
    expect(danglingDir?.["errorMessage"]).toMatch(/dangling-dir .*is a symbolic link to a missing directory/);
    expect(editDangling).toMatchObject({ state: "STATE_ERROR" });
    expect(ok).toMatchObject({ state: "STATE_DONE" });
    expect(final.find((s) => s.runCommand !== undefined)).toMatchObject({
      state: "STATE_DONE",
      runCommand: { exitCode: 0 },
    });

    await outsideUnchanged();
    // The links are still links, and the file they point at inside the workspace is untouched.
    for (const name of ["dangling.txt", "chain.txt", "by-command.txt", "inside-link.txt"])
      expect((await lstat(path.join(fixture.workspace, name))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(fixture.workspace, "inside.txt"), "utf8")).toBe("inside");
    expect(await readFile(path.join(fixture.workspace, "made/by/model.txt"), "utf8")).toBe("fine");
    client.close();
  });

  it("a workspace that is itself a symlink gets the same protection", async () => {
    const client = await TestClient.connect(fixture.harness.port, fixture.harness.apiKey);
    await client.init(harnessConfig(path.join(fixture.root, "ws-link")));
    client.prompt("workspace link");
    const [over, ok] = finalSteps(await client.turn()).filter((s: Frame) => s.createFile !== undefined);
    expect(over).toMatchObject({ state: "STATE_ERROR" });
    expect(over?.["errorMessage"]).toMatch(/is a symbolic link/);
    expect(ok).toMatchObject({
      state: "STATE_DONE",
      createFile: { filePath: path.join(await realpath(fixture.workspace), "ok.txt") },
    });
    await outsideUnchanged();
    client.close();
  });

  it("list_directory reports a symlink as a link with its own size, never its outside target's", async () => {
    const client = await fixture.connect();
    client.prompt("list");
    const final = finalSteps(await client.turn());
    const linkSize = async (name: string): Promise<number> => (await lstat(path.join(fixture.workspace, name))).size;
    const results = final.find((s) => s.listDirectory !== undefined)?.["listDirectory"].results as Frame[];
    expect(results).toEqual(
      expect.arrayContaining([
        { name: "big-link", fileSize: String(await linkSize("big-link")) },
        { name: "dir-link", fileSize: String(await linkSize("dir-link")) },
        { name: "inside.txt", fileSize: "6" },
      ]),
    );
    const listing = JSON.parse(String(final[final.length - 1]?.["text"]).replace(/^listing: /, "")) as {
      results: Frame[];
    };
    expect(listing.results).toEqual(
      expect.arrayContaining([
        { name: "big-link", type: "symlink", is_directory: false, file_size: await linkSize("big-link") },
        { name: "dir-link", type: "symlink", is_directory: false, file_size: await linkSize("dir-link") },
        { name: "inside.txt", type: "file", is_directory: false, file_size: 6 },
      ]),
    );
    expect(await readlink(path.join(fixture.workspace, "big-link"))).toBe("../outside/big.bin");
    client.close();
  });
});
