import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessFixture } from "../test-support/fixture.js";
import { extractUpstreamToolResult, extractUpstreamToolResultStrict } from "../test-support/upstream-tool-result.js";
import { finalSteps, type Frame, type TestClient } from "../test-support/ws-client.js";

// Every built-in's POST_TOOL `result` (§10), read the way upstream's client reads it: the
// structured models of upstream's `_extract_tool_result`, fed by frames sent as upstream sends them.

const SCRIPT = {
  turns: [
    {
      match: "every tool",
      calls: [
        {
          toolCalls: [
            { name: "create_file", args: { file_path: "notes/a.txt", contents: "alpha\nbeta\n" } },
            { name: "edit_file", args: { file_path: "notes/a.txt", old_string: "beta", new_string: "gamma" } },
            { name: "view_file", args: { file_path: "notes/a.txt" } },
            { name: "list_directory", args: { directory_path: "." } },
            { name: "find_file", args: { directory_path: ".", pattern: "*.txt" } },
            { name: "search_directory", args: { directory_path: ".", query: "gamma" } },
            { name: "run_command", args: { CommandLine: "printf 'hi there'" } },
            { name: "ask_question", args: { questions: [{ question: "Color?", choices: ["red", "blue"] }] } },
          ],
        },
        { text: "done" },
      ],
    },
  ],
};

/** Runs a turn, answering POST_TOOL hooks (emptyResult) and questions like upstream's client; returns the hook args. */
async function turnAnsweringHooks(client: TestClient): Promise<{ posts: Frame[]; frames: Frame[] }> {
  const posts: Frame[] = [];
  const frames: Frame[] = [];
  for (;;) {
    const frame = await client.next(() => true, "the next frame of the turn");
    frames.push(frame);
    const hook = frame["callHookRequest"] as Frame | undefined;
    if (hook !== undefined) {
      posts.push(hook["postToolArgs"] as Frame);
      client.send({ callHookResponse: { requestId: hook["requestId"], emptyResult: {} } });
    }
    const step = frame["stepUpdate"] as Frame | undefined;
    if (step?.["state"] === "STATE_WAITING_FOR_USER" && step["questionsRequest"] !== undefined) {
      client.send({
        questionResponse: {
          trajectoryId: step["trajectoryId"],
          stepIndex: step["stepIndex"],
          response: { answers: [{ multipleChoiceAnswer: { selectedChoiceIndices: [1] } }] },
        },
      });
    }
    if (frame["trajectoryStateUpdate"]?.state === "STATE_FULLY_IDLE") return { posts, frames };
  }
}

describe("POST_TOOL results of the built-ins, as upstream's hook parser reads them (§10)", () => {
  const fixture = useHarnessFixture({
    name: "post-tool",
    script: SCRIPT,
    config: { enabledHooks: ["LIFECYCLE_HOOK_POST_TOOL"] },
    prepare: async (_root, workspace) => {
      await mkdir(path.join(workspace, "sub"));
      await writeFile(path.join(workspace, "sub", "inner.txt"), "12345");
      await writeFile(path.join(workspace, "README.md"), "# readme\n");
    },
  });

  it("gives every structured built-in a result upstream's models validate, with the true values", async () => {
    const client = await fixture.connect();
    client.prompt("every tool");
    const { posts, frames } = await turnAnsweringHooks(client);
    const byTool = new Map(posts.map((p) => [p["toolName"] as string, p]));
    expect([...byTool.keys()]).toEqual([
      "create_file",
      "edit_file",
      "view_file",
      "list_directory",
      "find_file",
      "search_directory",
      "run_command",
      "ask_question",
    ]);
    for (const post of posts) {
      expect(post["error"]).toBeUndefined();
      expect(typeof post["result"]).toBe("string");
    }
    const result = (tool: string): Record<string, unknown> =>
      extractUpstreamToolResultStrict(tool, byTool.get(tool)?.["result"] as string);

    // list_directory: ListDirectoryResult{entries|results: [{name, is_directory, file_size}]}
    const entries = result("list_directory")["entries"] as { name: string; is_directory: boolean; file_size: number }[];
    const sizeOf = async (name: string): Promise<number> => (await stat(path.join(fixture.workspace, name))).size;
    expect(entries).toEqual(
      expect.arrayContaining([
        { name: "sub", is_directory: true, file_size: 0 },
        { name: "notes", is_directory: true, file_size: 0 },
        { name: "README.md", is_directory: false, file_size: await sizeOf("README.md") },
      ]),
    );
    // ... and agrees with the step's ActionListDirectory (isDirectory | fileSize)
    const listStep = finalSteps(frames).find((s) => s.listDirectory !== undefined)?.["listDirectory"] as Frame;
    expect(
      entries.map((e) =>
        e.is_directory ? { name: e.name, isDirectory: true } : { name: e.name, fileSize: String(e.file_size) },
      ),
    ).toEqual(listStep["results"]);

    expect(result("find_file")["output"]).toBe("notes/a.txt\nsub/inner.txt");
    expect(result("search_directory")["num_results"]).toBe(1);
    expect(result("edit_file")["summary"]).toBe("edited notes/a.txt: replaced 1 occurrence");
    expect(result("run_command")["output"]).toBe("hi there");

    // No structured model upstream: the hook gets the JSON text itself.
    for (const tool of ["create_file", "view_file", "ask_question"])
      expect(extractUpstreamToolResult(tool, byTool.get(tool)?.["result"] as string)).toBeUndefined();
    expect(JSON.parse(byTool.get("view_file")?.["result"] as string)).toMatchObject({ content: "alpha\ngamma\n" });
    expect(JSON.parse(byTool.get("ask_question")?.["result"] as string)).toEqual({
      answers: [{ question: "Color?", selected: ["blue"] }],
    });
    client.close();
  });
});
