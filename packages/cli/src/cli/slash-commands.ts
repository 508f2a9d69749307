import { isSyntheticToolStep, SdkError, StepSource, StepType, type Step } from "@antigravity-ts/sdk";
import { DEFAULT_CONVERSATION_FILE } from "./conversation-file.js";
import type { ReplSession } from "./repl-session.js";
import type { TurnRenderer } from "./turn-renderer.js";

/** What the slash commands act on: the REPL's output and session. */
export interface SlashCommandHost {
  readonly renderer: TurnRenderer;
  readonly session: Pick<ReplSession, "conversation" | "newConversation" | "save" | "load">;
}

/** After a command: keep reading lines, or leave the REPL. */
export type SlashOutcome = "continue" | "exit";

/** Text of `/help`. */
export const SLASH_HELP = [
  "/help           this list",
  "/exit           leave (also exit, quit, Ctrl-D)",
  "/clear          start a new conversation: the model forgets, history and usage start over",
  "/usage          token usage of the last turn and of the conversation",
  "/history        the conversation's turns: prompt, tools called, answer",
  `/save [file]    save the conversation as JSON (default ${DEFAULT_CONVERSATION_FILE})`,
  `/load [file]    continue a saved conversation (default ${DEFAULT_CONVERSATION_FILE})`,
].join("\n");

/** A line that is a command: `/` and a word first (`/etc/hosts …` is a prompt). */
export function isSlashCommand(line: string): boolean {
  return /^\/[A-Za-z]+(?:\s|$)/.test(line);
}

/** Runs a command line (see {@link isSlashCommand}); failures are printed, never thrown. */
export async function runSlashCommand(line: string, host: SlashCommandHost): Promise<SlashOutcome> {
  const [, name = "", rest = ""] = /^\/(\S+)\s*(.*)$/.exec(line.trim()) ?? [];
  const argument = rest.trim();
  const { renderer, session } = host;
  try {
    switch (name.toLowerCase()) {
      case "help":
        renderer.note(SLASH_HELP);
        return "continue";
      case "exit":
      case "quit":
        return "exit";
      case "clear":
        renderer.note(`new conversation ${await session.newConversation()}`, "dim");
        return "continue";
      case "usage": {
        const conversation = session.conversation();
        renderer.note(`turns: ${await conversation.turnCount()}`, "dim");
        renderer.usage(await conversation.lastTurnUsage(), await conversation.totalUsage());
        return "continue";
      }
      case "history":
        printHistory(renderer, await session.conversation().history(), await session.conversation().turnStartIndices());
        return "continue";
      case "save": {
        const { path, snapshot } = await session.save(argument || DEFAULT_CONVERSATION_FILE);
        renderer.note(
          `saved ${plural(snapshot.turnCount, "turn")} of conversation ${snapshot.conversationId} to ${path}`,
          "dim",
        );
        return "continue";
      }
      case "load": {
        const { snapshot, modelHasContext } = await session.load(argument || DEFAULT_CONVERSATION_FILE);
        const context = modelHasContext
          ? ""
          : "; the harness has no record of it, so the model starts without its context";
        renderer.note(
          `loaded ${plural(snapshot.turnCount, "turn")} of conversation ${snapshot.conversationId}${context}`,
          "dim",
        );
        return "continue";
      }
      default:
        renderer.note(
          `unknown command /${name}; /help lists the commands (a prompt that starts with / needs a space before it)`,
          "error",
        );
        return "continue";
    }
  } catch (error) {
    const sdkError = SdkError.from(error);
    renderer.note(`/${name}: ${sdkError.code}: ${sdkError.message}`, "error");
    return "continue";
  }
}

/** One paragraph per turn: `N › prompt`, the tools it called, then its answer (clipped). */
function printHistory(renderer: TurnRenderer, steps: readonly Step[], turnStarts: readonly number[]): void {
  if (turnStarts.length === 0) {
    renderer.note("no turns yet", "dim");
    return;
  }
  turnStarts.forEach((start, i) => {
    const turn = steps.slice(start, turnStarts[i + 1] ?? steps.length);
    const prompt = turn
      .filter((step) => step.source === StepSource.User)
      .map((step) => step.content)
      .join(" ");
    const tools = new Map<string, string>();
    for (const step of turn) {
      const call = step.toolCalls[0];
      if (step.type === StepType.ToolCall && call !== undefined && !isSyntheticToolStep(step))
        tools.set(call.id || step.id, call.name);
    }
    const answer = turn
      .filter((step) => step.source === StepSource.Model && step.type === StepType.TextResponse)
      .map((step) => step.content)
      .join(" ");
    renderer.note(`${i + 1} › ${clip(prompt, 200)}`);
    if (tools.size > 0) renderer.note(`  tools: ${[...tools.values()].join(", ")}`, "dim");
    if (answer !== "") renderer.note(`  ${clip(answer, 300)}`);
  });
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
