import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a documented example the way its header says, against the bundled reference harness. */
async function runExample(file: string, ...args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The examples must work offline: make sure no real model or harness is picked up.
  for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH", "ANTIGRAVITY_MODEL_PROVIDER"]) delete env[name];
  const { stdout } = await run(
    process.execPath,
    ["--conditions=antigravity-source", "--import", "tsx", file, ...args],
    { cwd: root, env, timeout: 60_000 },
  );
  return stdout;
}

describe("documented Node examples (seed 000/001) against the reference harness", () => {
  it("streaming.ts prints thoughts, text and a tool call as they arrive", async () => {
    const out = await runExample("docs/examples/node/streaming.ts");
    expect(out).toMatch(/^User: Solve this riddle/);
    expect(out).toContain("I am the scripted demo model"); // a thought chunk
    expect(out).toContain("(scripted demo model — set GEMINI_API_KEY for a real one)"); // a text chunk
    // The demo model looks at the workspace with find_file, a default built-in (list_directory is
    // none since upstream 0.1.19); this example declares no tool of its own.
    expect(out).toContain('[Tool Call: find_file with args: {"directory_path":".","pattern":"*"}]');
    // The second model call's text starts a paragraph of its own (issue 26 item 3).
    expect(out).toMatch(/\n\nHere is what I found/);
  });

  it("blocking.ts prints the whole turn and the conversation's state", async () => {
    const out = await runExample("docs/examples/node/blocking.ts");
    expect(out).toMatch(/Response:\n\(scripted demo model/);
    // One paragraph per model call, not "…tools you gave me.Here is what I found" (issue 26 item 3).
    expect(out).toMatch(/the tools you gave me\.\n\nHere is what I found/);
    expect(out).toMatch(/Thinking: The user said: “What is 2 \+ 2\?”/);
    expect(out).toContain("Turns completed: 1");
    const total = /Total tokens: (\d+)/.exec(out);
    expect(Number(total?.[1])).toBeGreaterThan(0);
    const session = /Session tokens: (\d+) prompt, (\d+) generated, (\d+) total/.exec(out);
    expect(Number(session?.[3])).toBe(Number(total?.[1]));
  });

  it("persistence-memory.ts continues a conversation in a second session and prints its snapshot", async () => {
    const out = await runExample("docs/examples/node/persistence-memory.ts");
    expect(out).toContain("Stored: antigravity-ts.conversation version 1, ");
    expect(out).toMatch(/Stored: .+, 1 turn\(s\)/);
    expect(out).toMatch(/Second session restored 1 turn\(s\), [1-9]\d* steps/);
    expect(out).toContain("Turns now: 2");
    expect(out).toMatch(/Snapshot: \d+ characters, 2 turns, [1-9]\d* tokens/);
  });

  it("ndjson-child.ts drives the NDJSON CLI from a child process: two turns, a confirmation approved by a line, a clean exit", async () => {
    const out = await runExample("docs/examples/node/ndjson-child.ts");
    expect(out).toMatch(/^session [\w-]+ \(format version 2\)$/m);
    expect(out).toContain("receipt: message first started turn 0");
    expect(out).toContain("receipt: message second started turn 1");
    expect(out).toContain("[tool call: get_weather]");
    // Format version 2: the request repeats the toolCall line's call, arguments as the step spells them.
    expect(out).toMatch(/approving run_command \{"CommandLine":"echo hello","Cwd":""\}/);
    expect(out).toMatch(/turn 0 completed, [1-9]\d* tokens/);
    expect(out).toMatch(/turn 1 completed, [1-9]\d* tokens/);
    expect(out).not.toContain("error line");
    expect(out).toMatch(/the CLI exited with 0\n$/);
  });

  it("persistence-file.ts run twice continues the same conversation from its files", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "persistence-example-"));
    try {
      const first = await runExample("docs/examples/node/persistence-file.ts", dir);
      const id = /Conversation ([\w-]+): 0 turn\(s\) so far/.exec(first)?.[1];
      expect(id).toBeDefined();
      expect(first).toContain("Turns now: 1");
      const second = await runExample("docs/examples/node/persistence-file.ts", dir);
      expect(second).toContain(`Conversation ${id}: 1 turn(s) so far`);
      expect(second).toContain("Turns now: 2");
      expect(await readdir(path.join(dir, "conversations"))).toEqual([`${id}.json`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
