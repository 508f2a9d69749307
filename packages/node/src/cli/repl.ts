import { createInterface, type Interface } from "node:readline";
import type { ToolCall } from "@antigravity-ts/sdk";
import { AsyncQueue } from "@antigravity-ts/sdk/internal";
import type { CliOptions } from "./cli-args.js";
import { buildDemoAgent, commandLineOf, describeModel } from "./demo-agent.js";
import { runTurn } from "./run-turn.js";
import { TurnRenderer } from "./turn-renderer.js";

/** Words that leave the REPL. */
const EXIT_WORDS = new Set(["exit", "quit", ".exit"]);

/**
 * The interactive mode (`antigravity --interactive`): one agent session, one turn per line,
 * rendered like the quick start. Leaves on `exit`/`quit`/EOF; Ctrl-C halts a running turn and
 * exits at the prompt. `run_command` asks for confirmation. Returns the process exit code.
 */
export async function runRepl(cli: CliOptions, input: NodeJS.ReadableStream, output: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const renderer = new TurnRenderer(output, cli.color === undefined ? {} : { color: cli.color });
  const rl: Interface = createInterface({ input, output, prompt: "› ", terminal: output.isTTY === true && (input as { isTTY?: boolean }).isTTY === true });
  // Lines typed (or piped) while a turn runs wait here; a pending question takes its answer first.
  const lines = new AsyncQueue<string>();
  let turn: AbortController | undefined;
  let closed = false;
  rl.on("line", (line) => lines.push(line));
  rl.once("close", () => {
    closed = true;
    lines.end();
    turn?.abort();
  });

  // The answer is the next input line, so typed and piped answers work alike.
  const confirm = async (call: ToolCall): Promise<boolean> => {
    if (closed) return false;
    renderer.ask(`allow run_command \`${commandLineOf(call)}\`? [y/N]`);
    try {
      const answer = await lines.read(turn?.signal).catch(() => ({ done: true as const, value: undefined }));
      return answer.done !== true && /^y(es)?$/i.test(answer.value.trim());
    } finally {
      renderer.answered();
    }
  };
  const agent = buildDemoAgent({ cli, confirmRunCommand: confirm, ...(cli.verbose ? { onStderr: (line) => renderer.note(`[harness] ${line}`, "dim") } : {}) });

  // Ctrl-C: readline reports it on a terminal, the process gets SIGINT when input is a pipe.
  const onInterrupt = (): void => {
    if (turn !== undefined && !turn.signal.aborted) turn.abort();
    else rl.close();
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);
  renderer.note(`model: ${describeModel()} · starting the harness…`, "dim");
  const started = await agent.start({ timeoutMs: 60_000 });
  try {
    renderer.note(`ready · conversation ${started.conversationId} · "exit" or Ctrl-D to leave, Ctrl-C halts a turn`, "dim");
    for (;;) {
      if (lines.size === 0 && !closed) rl.prompt();
      const next = await lines.read();
      if (next.done === true) break;
      const prompt = next.value.trim();
      if (prompt === "") continue;
      if (EXIT_WORDS.has(prompt.toLowerCase())) break;
      turn = new AbortController();
      try {
        await runTurn(started.conversation(), prompt, renderer, turn.signal);
      } catch (error) {
        renderer.note(`error: ${error instanceof Error ? error.message : String(error)}`, "error");
      } finally {
        turn = undefined;
      }
      if (closed) break;
    }
    return 0;
  } finally {
    process.off("SIGINT", onInterrupt);
    rl.close();
    await started.stop();
  }
}
