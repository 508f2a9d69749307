import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  WebSocketTransport,
  allowAll,
  deny,
  type HookToolCall,
  type StartedAgent,
  type ToolCall,
} from "@antigravity-ts/sdk";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 10 items 8 and 9 against the reference harness over real sockets: a policy predicate
// written from what the stream shows must match what the harness asks about — here, a deny that
// must deny — and a PRE_TOOL hook sees the same spelling and local paths for file:// URIs.

const SCRIPT = fileURLToPath(new URL("./scripts/canonical-args-script.json", import.meta.url));
const BOUND_MS = 10_000;

describe("one spelling of a tool call (reference harness over WebSocket)", () => {
  let workspace = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-canonical-"));
    await writeFile(path.join(workspace, "victim.txt"), "keep me");
    await writeFile(path.join(workspace, "notes.txt"), "hello notes");
    harness = await startListeningHarness({ env: harnessEnv(SCRIPT), workspace, apiKey: "canonical-key-0123456789" });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (workspace !== "") await rm(workspace, { recursive: true, force: true });
  });

  it("a deny predicate keyed on what the chunk stream shows denies the harness's call", async () => {
    /** The argument key the stream shows the command under, learnt from the first turn. */
    let commandKey: string | undefined;
    const predicateSaw: ToolCall[] = [];
    const hookSaw: HookToolCall[] = [];
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent: StartedAgent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .hook({ preToolCall: (call) => void hookSaw.push(call) })
      .policies(
        deny("run_command", "rm is not allowed here").when((call) => {
          predicateSaw.push(call);
          const args = call.args as Record<string, unknown>;
          return commandKey !== undefined && String(args[commandKey]).startsWith("rm");
        }),
        allowAll(),
      )
      .build()
      .start({ timeoutMs: BOUND_MS });
    try {
      const shown: ToolCall[] = [];
      for await (const chunk of agent.chat("run echo safe", { timeoutMs: BOUND_MS }))
        if (chunk.type === "toolCall") shown.push(chunk.toolCall);
      const call = shown.find((c) => c.name === "run_command");
      const args = (call?.args ?? {}) as Record<string, unknown>;
      commandKey = Object.keys(args).find((key) => args[key] === "echo safe");
      expect(commandKey).toBe("CommandLine");
      // The predicate and the hook were asked about that call under the same key.
      expect(predicateSaw.map((c) => (c.args as Record<string, unknown>)[commandKey ?? ""])).toEqual(["echo safe"]);
      expect(hookSaw.map((c) => [c.name, (c.args as Record<string, unknown>)[commandKey ?? ""]])).toEqual([
        ["run_command", "echo safe"],
      ]);

      const denied = await agent.chatToCompletion("run rm -f victim.txt", { timeoutMs: BOUND_MS });
      const step = denied.steps.find((s) => s.toolCalls.some((c) => c.name === "run_command"));
      expect(step?.status).toBe("ERROR");
      expect(step?.error).toContain("rm is not allowed here");
      await access(path.join(workspace, "victim.txt")); // still there: the command never ran
      expect(predicateSaw.map((c) => (c.args as Record<string, unknown>)["CommandLine"])).toEqual([
        "echo safe",
        "rm -f victim.txt",
      ]);
    } finally {
      await agent.stop();
    }
  });

  it("gives PRE_TOOL hooks and the stream the same local path for a file:// URI", async () => {
    const hookSaw: HookToolCall[] = [];
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    const agent = await Agent.builder()
      .transport(transport)
      .workspaces(workspace)
      .hook({ preToolCall: (call) => void hookSaw.push(call) })
      .allowAll()
      .build()
      .start({ timeoutMs: BOUND_MS });
    try {
      const file = path.join(workspace, "notes.txt");
      const shown: ToolCall[] = [];
      for await (const chunk of agent.chat(`view ${pathToFileURL(file).href}`, { timeoutMs: BOUND_MS }))
        if (chunk.type === "toolCall") shown.push(chunk.toolCall);
      expect(hookSaw.map((c) => [c.name, c.args, c.canonicalPath])).toEqual([["view_file", { file_path: file }, file]]);
      expect(
        shown
          .filter((c) => c.name === "view_file")
          .map((c) => [(c.args as Record<string, unknown>)["file_path"], c.canonicalPath]),
      ).toEqual([[file, file]]);
    } finally {
      await agent.stop();
    }
  });
});
