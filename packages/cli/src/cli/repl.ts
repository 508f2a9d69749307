import type { ToolCall, ToolCallLocation } from "@antigravity-ts/sdk";
import type { CliOptions } from "./cli-args.js";
import { commandLineOf, describeModel } from "./demo-agent.js";
import { describeHosted } from "./hosted-agent-command.js";
import { ReplInput } from "./repl-input.js";
import { ReplSession } from "./repl-session.js";
import { runTurn } from "./run-turn.js";
import { isSlashCommand, runSlashCommand, type SlashCommandHost } from "./slash-commands.js";
import { TurnRenderer } from "./turn-renderer.js";
import { errorText } from "@antigravity-ts/sdk/internal";

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
export async function runRepl(
  cli: CliOptions,
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream & { isTTY?: boolean },
): Promise<number> {
  const renderer = new TurnRenderer(output, { color: cli.color });
  let turn: AbortController | undefined;
  const lines = new ReplInput(input, output, { prompt: PROMPT, onInterrupt: () => interrupt() });
  // Ctrl-C: readline reports it on a terminal, the process gets SIGINT when input is a pipe.
  const interrupt = (): void => {
    if (turn !== undefined && !turn.signal.aborted) turn.abort();
    else lines.close();
  };
  process.on("SIGINT", interrupt);

  // One question at a time: calls the model makes in parallel are asked about in turn.
  let questions: Promise<unknown> = Promise.resolve();
  const confirm = (call: ToolCall, where?: ToolCallLocation): Promise<boolean> => {
    const asked = questions.then(async () => {
      // Ask about a call the screen shows: wait (bounded) until its tool line is drawn (a built-in call's id is its step's).
      await renderer.whenShown(where?.stepId ?? call.id);
      renderer.hold();
      try {
        const answer = await lines.ask(`allow run_command \`${commandLineOf(call)}\`? [y/N]`, turn?.signal);
        return answer !== undefined && /^y(es)?$/i.test(answer.trim());
      } finally {
        renderer.release();
      }
    });
    questions = asked.catch(() => undefined);
    return asked;
  };
  let session: ReplSession | undefined;
  try {
    renderer.note(
      cli.hosted === undefined ? `model: ${describeModel()} · starting the harness…` : describeHosted(cli.hosted),
      "dim",
    );
    session = await ReplSession.start({
      cli,
      confirmRunCommand: confirm,
      ...(cli.verbose ? { onStderr: (line: string) => renderer.note(`[harness] ${line}`, "dim") } : {}),
    });
    renderer.note(
      `ready · conversation ${session.conversationId} · /help lists the commands, /exit or Ctrl-D leaves, Ctrl-C halts a turn`,
      "dim",
    );
    const host: SlashCommandHost = { renderer, session };
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
        await runTurn(session.conversation(), line, renderer, turn.signal);
      } catch (error) {
        renderer.note(`error: ${errorText(error)}`, "error");
      } finally {
        turn = undefined;
      }
    }
    return 0;
  } finally {
    process.off("SIGINT", interrupt);
    lines.close();
    await session?.stop();
  }
}
