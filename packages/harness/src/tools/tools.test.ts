import { TaskBoard } from "./tasks/task-board.js";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argvGone, pidOfArgv, waitUntilGone } from "@antigravity-ts/test-kit";
import { createWorkspaceRoots } from "./workspace-paths.js";
import { createFileTool } from "./create-file.js";
import { editFileTool } from "./edit-file.js";
import { findFileTool } from "./find-file.js";
import { MAX_COMMAND_OUTPUT, runCommandTool } from "./run-command.js";
import { searchDirectoryTool } from "./search-directory.js";
import type { ToolContext } from "./tool.js";
import { viewFileTool } from "./view-file.js";

describe("built-in tools", () => {
  let root: string;
  let context: ToolContext;
  const progress: unknown[] = [];
  const withSignal = (signal: AbortSignal, timeoutMs = 60_000): ToolContext => ({
    ...context,
    signal,
    runCommandTimeoutMs: timeoutMs,
  });

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), "harness-tools-")));
    await mkdir(path.join(root, "src", "deep"), { recursive: true });
    await mkdir(path.join(root, "node_modules", "pkg"), { recursive: true });
    await writeFile(path.join(root, "src", "a.ts"), "const x = 1;\nconst y = 2;\n");
    await writeFile(path.join(root, "src", "deep", "b.ts"), "export const Y = 'y';\n");
    await writeFile(path.join(root, "node_modules", "pkg", "c.ts"), "const y = 3;\n");
    await writeFile(path.join(root, "notes.md"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
    context = {
      workspace: await createWorkspaceRoots([root]),
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
      runCommandTimeoutMs: 60_000,
      sandbox: undefined,
      signal: new AbortController().signal,
      tasks: new TaskBoard(),
      daemonCommands: false,
      progress: (patch) => progress.push(patch),
      askUser: () => Promise.reject(new Error("no questions here")),
    };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("run_command returns exit code and combined output, in the workspace, with the given env", async () => {
    const result = await runCommandTool.run(
      { CommandLine: "echo out; echo err >&2; pwd; echo $PATH; exit 3" },
      context,
    );
    expect(result.response).toEqual({ output: `out\nerr\n${root}\n${context.env["PATH"]}\n`, exit_code: 3, cwd: "." });
    expect(result.action).toMatchObject({
      runCommand: { commandLine: expect.any(String), workingDir: root, exitCode: 3 },
    });
  });

  it("run_command kills the whole process group on timeout", async () => {
    // Found by argv: the command runs in a PID namespace of its own, where `$!` means nothing outside.
    const marker = `30.${process.pid}1`;
    const run = runCommandTool.run(
      { CommandLine: `sleep ${marker} & wait` },
      withSignal(new AbortController().signal, 1_000),
    );
    const background = await pidOfArgv(["sleep", marker]);
    await expect(run).rejects.toThrow("command timed out after 1000 ms and was killed");
    expect(await waitUntilGone(background)).toBe(true);
  });

  it("run_command stops when its signal aborts, and does not leave background jobs behind", async () => {
    const controller = new AbortController();
    const run = runCommandTool.run({ CommandLine: "echo started; sleep 30" }, withSignal(controller.signal));
    for (let i = 0; i < 200 && !progress.some((p) => JSON.stringify(p).includes("started")); i++) await sleep(10);
    controller.abort(new Error("halted"));
    await expect(run).rejects.toThrow("halted");

    const marker = `30.${process.pid}2`;
    await runCommandTool.run({ CommandLine: `(sleep ${marker} &)` }, context);
    expect(await argvGone(["sleep", marker])).toBe(true);
  });

  it("run_command caps the output it keeps", async () => {
    const result = await runCommandTool.run(
      { CommandLine: `head -c ${MAX_COMMAND_OUTPUT + 5000} /dev/zero | tr '\\0' a` },
      context,
    );
    expect(result.response["truncated"]).toBe(true);
    expect(String(result.response["output"])).toMatch(
      new RegExp(`^a{${MAX_COMMAND_OUTPUT}}\\n… \\[output truncated: 5000 more characters\\]$`),
    );
  });

  it("view_file shows a 1-based line range", async () => {
    const result = await viewFileTool.run({ file_path: "notes.md", start_line: 3, end_line: 4 }, context);
    expect(result.response).toMatchObject({ content: "line 3\nline 4", start_line: 3, end_line: 4, total_lines: 10 });
    await expect(viewFileTool.run({ file_path: "notes.md", start_line: 20 }, context)).rejects.toThrow("past the end");
    await expect(viewFileTool.run({ file_path: "src" }, context)).rejects.toThrow("is a directory");
  });

  it("create_file refuses to overwrite unless asked; edit_file needs a unique match unless replace_all", async () => {
    await createFileTool.run({ file_path: "made/new.txt", contents: "a\nb\na\n" }, context);
    await expect(createFileTool.run({ file_path: "made/new.txt", contents: "x" }, context)).rejects.toThrow(
      "already exists",
    );
    await expect(
      editFileTool.run({ file_path: "made/new.txt", old_string: "a", new_string: "z" }, context),
    ).rejects.toThrow("occurs 2 times");
    await expect(
      editFileTool.run({ file_path: "made/new.txt", old_string: "q", new_string: "z" }, context),
    ).rejects.toThrow("was not found");
    const edit = await editFileTool.run(
      { file_path: "made/new.txt", old_string: "a\n", new_string: "A1\nA2\n", replace_all: true },
      context,
    );
    expect(edit.response).toEqual({ summary: "edited made/new.txt: replaced 2 occurrences" });
    expect(await readFile(path.join(root, "made/new.txt"), "utf8")).toBe("A1\nA2\nb\nA1\nA2\n");
    await createFileTool.run({ file_path: "made/new.txt", contents: "fresh", overwrite: true }, context);
    expect(await readFile(path.join(root, "made/new.txt"), "utf8")).toBe("fresh");
  });

  it("find_file and search_directory walk the tree, skipping node_modules", async () => {
    expect((await findFileTool.run({ directory_path: ".", pattern: "*.ts" }, context)).response).toEqual({
      output: "src/a.ts\nsrc/deep/b.ts",
      count: 2,
    });
    expect(
      (await findFileTool.run({ directory_path: "src", pattern: "deep/*.{ts,js}" }, context)).response["output"],
    ).toBe("deep/b.ts");
    const search = await searchDirectoryTool.run(
      { directory_path: ".", query: "const y", case_insensitive: true },
      context,
    );
    expect(search.text).toBe("src/a.ts:2: const y = 2;\nsrc/deep/b.ts:1: export const Y = 'y';");
    expect(
      (await searchDirectoryTool.run({ directory_path: ".", query: "^const \\w = 1", is_regex: true }, context))
        .response["num_results"],
    ).toBe(1);
    await expect(searchDirectoryTool.run({ directory_path: ".", query: "(", is_regex: true }, context)).rejects.toThrow(
      "invalid regular expression",
    );
  });
});
