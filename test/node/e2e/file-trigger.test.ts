import { readFileSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  ErrorCode,
  SdkError,
  WebSocketTransport,
  onFileChange,
  type FileChange,
  type StartedAgent,
} from "@antigravity-ts/node";
import { harnessEnv, killAllHarnesses, startListeningHarness, type ListeningHarness } from "@antigravity-ts/test-kit";

// Issue 10 item 14: the file-change trigger helper (upstream `triggers.on_file_change`) — a real
// file write makes a real trigger turn on the reference harness; start and stop leave no watcher.

const SCRIPT = fileURLToPath(new URL("./scripts/file-trigger-script.json", import.meta.url));
const BOUND_MS = 15_000;

/** Inotify watches this process holds (Linux): what a leaked watcher would leave behind. */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync("/proc/self/fdinfo")) {
    try {
      watches += (readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").match(/^inotify wd:/gm) ?? []).length;
    } catch {
      // the descriptor closed meanwhile
    }
  }
  return watches;
}

describe("onFileChange against the reference harness", () => {
  let root = "";
  let harness: ListeningHarness | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "antigravity-file-trigger-"));
    harness = await startListeningHarness({
      env: harnessEnv(SCRIPT),
      workspace: root,
      apiKey: "file-trigger-key-0123456789",
    });
  });

  afterAll(async () => {
    await harness?.stop();
    await killAllHarnesses();
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  function start(
    watched: string,
    seen: FileChange[][],
    extra: Parameters<typeof onFileChange>[2] = {},
  ): Promise<StartedAgent> {
    const trigger = onFileChange(
      watched,
      (_context, changes) => {
        seen.push([...changes]);
        return `files changed: ${changes.map((c) => `${c.kind} ${path.basename(c.path)}`).join(", ")}`;
      },
      { debounceMs: 50, ...extra },
    );
    const transport = new WebSocketTransport({
      host: "127.0.0.1",
      port: harness?.port ?? 0,
      apiKey: harness?.apiKey ?? "",
    });
    return Agent.builder()
      .transport(transport)
      .workspaces(root)
      .allowAll()
      .trigger(trigger)
      .build()
      .start({ timeoutMs: BOUND_MS });
  }

  it("turns a real file write into a trigger turn the model answers, and stops watching on stop()", async () => {
    const dir = await mkdtemp(path.join(root, "watched-"));
    await mkdir(path.join(dir, "sub"));
    // Hostile contents the recursive watcher must cope with: a link loop and a dangling link.
    await symlink(dir, path.join(dir, "sub", "loop"));
    await symlink(path.join(dir, "nowhere"), path.join(dir, "dangling"));
    const baseline = inotifyWatches();
    const seen: FileChange[][] = [];
    const agent = await start(dir, seen);
    try {
      expect(inotifyWatches()).toBeGreaterThan(baseline);
      const conversation = agent.conversation();
      const turns = conversation.turns({ signal: AbortSignal.timeout(BOUND_MS) })[Symbol.asyncIterator]();
      await writeFile(path.join(dir, "sub", "notes.txt"), "first draft\n");
      const next = await turns.next();
      expect(next.done).toBe(false);
      // waitForIdle waits for the turn the harness started for the trigger, unread so far.
      await conversation.waitForIdle({ timeoutMs: BOUND_MS });
      expect(conversation.isIdle).toBe(true);
      expect(await conversation.turnCount()).toBe(1);
      const response = await next.value?.final();
      await turns.return?.();
      expect(response?.text).toBe("I saw the change to added notes.txt.");
      expect(seen[0]).toEqual([{ kind: "added", path: path.join(dir, "sub", "notes.txt") }]);
      const history = await conversation.history();
      expect(history.map((s) => s.content)).toEqual([
        "[automated trigger] files changed: added notes.txt",
        "I saw the change to added notes.txt.",
      ]);
      // A prompt after the trigger turn works as usual.
      expect((await conversation.chatToCompletion("hello")).text).toBe("hello back");
    } finally {
      await agent.stop();
    }
    // After stop() no watch is left: every inotify watch the trigger added is gone.
    expect(inotifyWatches()).toBe(baseline);
  });

  it("fails start() with InvalidArgument for a missing path and a dangling link, and leaves nothing running", async () => {
    const dangling = path.join(root, "dangling-link");
    await symlink(path.join(root, "nowhere"), dangling);
    const baseline = inotifyWatches();
    for (const watched of [path.join(root, "missing"), dangling]) {
      const error = await start(watched, []).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(ErrorCode.InvalidArgument);
      expect((error as SdkError).message).toContain("does not exist");
    }
    expect(inotifyWatches()).toBe(baseline);
  });
});
