import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConversationSnapshot, StartedAgent, ToolCall } from "@antigravity-ts/sdk";
import { createMemoryConversationStore } from "@antigravity-ts/sdk/storage";
import type { CliOptions } from "./cli-args.js";
import { copyHarnessStorage, readConversationFile, restoreHarnessStorage, writeConversationFile } from "./conversation-file.js";
import { buildDemoAgent, commandLineOf, describeModel } from "./demo-agent.js";
import { ReplInput } from "./repl-input.js";
import { runTurn } from "./run-turn.js";
import { isSlashCommand, runSlashCommand, type SlashCommandHost } from "./slash-commands.js";
import { TurnRenderer } from "./turn-renderer.js";

/** Words that leave the REPL. */
const EXIT_WORDS = new Set(["exit", "quit", ".exit"]);

const PROMPT = "› ";

/**
 * The interactive mode (`antigravity --interactive`): one agent session, one turn per line,
 * rendered like the quick start, plus slash commands (`/help`). Lines typed while a turn runs
 * are not echoed into it: they queue and each gets its own prompt line when its turn starts.
 * Leaves on `exit`/`quit`/`/exit` or at the end of input (after the queued lines); Ctrl-C halts a
 * running turn and exits at the prompt. `run_command` asks for confirmation, once, on its own
 * line. Returns the process exit code.
 */
export async function runRepl(cli: CliOptions, input: NodeJS.ReadableStream & { isTTY?: boolean }, output: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const renderer = new TurnRenderer(output, cli.color === undefined ? {} : { color: cli.color });
  let turn: AbortController | undefined;
  const lines = new ReplInput(input, output, { prompt: PROMPT, onInterrupt: () => interrupt() });
  // Ctrl-C: readline reports it on a terminal, the process gets SIGINT when input is a pipe.
  const interrupt = (): void => {
    if (turn !== undefined && !turn.signal.aborted) turn.abort();
    else lines.close();
  };
  process.on("SIGINT", interrupt);

  const confirm = async (call: ToolCall): Promise<boolean> => {
    renderer.hold();
    try {
      const answer = await lines.ask(`allow run_command \`${commandLineOf(call)}\`? [y/N]`, turn?.signal);
      return answer !== undefined && /^y(es)?$/i.test(answer.trim());
    } finally {
      renderer.release();
    }
  };
  // One harness save directory for the REPL's sessions: /save copies it beside the file, /load back.
  const saveDir = await mkdtemp(join(tmpdir(), "antigravity-repl-"));
  const startSession = (snapshot?: ConversationSnapshot): Promise<StartedAgent> => {
    const continueConversation = snapshot === undefined ? undefined : { conversationId: snapshot.conversationId, store: createMemoryConversationStore({ entries: new Map([[snapshot.conversationId, snapshot]]) }) };
    const agent = buildDemoAgent({
      cli,
      confirmRunCommand: confirm,
      saveDir,
      ...(continueConversation === undefined ? {} : { continueConversation }),
      ...(cli.verbose ? { onStderr: (line: string) => renderer.note(`[harness] ${line}`, "dim") } : {}),
    });
    return agent.start({ timeoutMs: 60_000 });
  };

  let started: StartedAgent | undefined;
  try {
    renderer.note(`model: ${describeModel()} · starting the harness…`, "dim");
    started = await startSession();
    renderer.note(`ready · conversation ${started.conversationId} · /help lists the commands, /exit or Ctrl-D leaves, Ctrl-C halts a turn`, "dim");
    const host: SlashCommandHost = {
      renderer,
      conversation: () => (started as StartedAgent).conversation(),
      newConversation: async () => {
        await started?.stop();
        started = await startSession();
        return started.conversationId;
      },
      save: async (file) => {
        const snapshot = await (started as StartedAgent).conversation().snapshot();
        const path = await writeConversationFile(file, snapshot);
        // The harness has written all of its session once it stopped: copy it, then go on where we were.
        await started?.stop();
        try {
          await copyHarnessStorage(saveDir, path);
        } finally {
          started = await startSession(snapshot);
        }
        return { path, snapshot };
      },
      load: async (file) => {
        const saved = await readConversationFile(file);
        await started?.stop();
        try {
          if (saved.harnessStorage !== undefined) await restoreHarnessStorage(saved.harnessStorage, saveDir);
          started = await startSession(saved.snapshot);
        } catch (error) {
          started = await startSession(); // the REPL goes on with a new conversation
          throw error;
        }
        const modelHasContext = saved.snapshot.steps.length === 0 || started.connection.initialHistory.length > 0;
        return { snapshot: saved.snapshot, modelHasContext };
      },
    };
    for (;;) {
      if (lines.queued === 0) lines.prompt();
      const next = await lines.next();
      if (next === undefined) break;
      const line = next.text.trim();
      if (line === "") continue;
      // A line typed during a turn, or piped in, was not echoed: show it on its own prompt line.
      if (!next.echoed) renderer.note(`${PROMPT}${line}`);
      if (EXIT_WORDS.has(line.toLowerCase())) break;
      if (isSlashCommand(line)) {
        if ((await runSlashCommand(line, host)) === "exit") break;
        continue;
      }
      turn = new AbortController();
      try {
        await runTurn(started.conversation(), line, renderer, turn.signal);
      } catch (error) {
        renderer.note(`error: ${error instanceof Error ? error.message : String(error)}`, "error");
      } finally {
        turn = undefined;
      }
    }
    return 0;
  } finally {
    process.off("SIGINT", interrupt);
    lines.close();
    await started?.stop();
    await rm(saveDir, { recursive: true, force: true });
  }
}
