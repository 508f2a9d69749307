/**
 * Browser chat: a page that talks to an Antigravity harness through the gateway of
 * `@antigravity-ts/node` (server.mjs). The page holds no harness key, only a per-server token.
 * The SDK's headless `Transcript` folds each turn's `ChatStream.events()` into messages (thinking,
 * text, a card per tool call, turn status, usage); render-transcript.ts draws them. It runs a
 * client tool in the page, asks before any run_command, and keeps the conversation across
 * reloads (IndexedDB).
 */
import {
  Agent,
  SdkError,
  Transcript,
  WebSocketTransport,
  type ChatStream,
  type StartedAgent,
  type TranscriptState,
} from "@antigravity-ts/sdk";
import { confirmInDialog } from "./confirm-dialog.js";
import { readPage } from "./page-tools.js";
import { describeUsage, renderTranscript } from "./render-transcript.js";
import { conversationStore, tabConversationId } from "./saved-conversation.js";

/** What server.mjs tells the page: where the gateway is and the token it wants. */
interface PageConfig {
  gatewayPath: string;
  token: string;
}

function required<T extends HTMLElement>(selector: string): T {
  const node = document.querySelector<T>(selector);
  if (node === null) throw new Error(`page is missing ${selector}`);
  return node;
}

const ui = {
  status: required<HTMLElement>("#status"),
  error: required<HTMLElement>("#error"),
  transcript: required<HTMLOListElement>("#transcript"),
  form: required<HTMLFormElement>("#composer"),
  prompt: required<HTMLTextAreaElement>("#prompt"),
  send: required<HTMLButtonElement>("#send"),
  stop: required<HTMLButtonElement>("#stop"),
  usage: required<HTMLElement>("#usage"),
};

function setStatus(state: "connecting" | "connected" | "busy" | "disconnected", text: string): void {
  ui.status.dataset["state"] = state === "busy" ? "connected" : state;
  ui.status.textContent = text;
}

function showError(error: unknown): void {
  const sdkError = SdkError.from(error);
  ui.error.textContent = `${sdkError.code}: ${sdkError.message}`;
  ui.error.hidden = false;
  ui.error.dataset["code"] = sdkError.code;
}

function setIdle(idle: boolean, usable: boolean): void {
  ui.prompt.disabled = !usable || !idle;
  ui.send.disabled = !usable || !idle;
  ui.stop.hidden = idle;
}

async function connect(): Promise<StartedAgent> {
  const config = (await (await fetch("/config.json", { cache: "no-store" })).json()) as PageConfig;
  const url = new URL(config.gatewayPath, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("token", config.token);
  // No apiKey here: the gateway adds the harness key. Only the page's token travels.
  return (
    Agent.builder()
      .transport(new WebSocketTransport({ url: url.href }))
      // A reload continues this tab's conversation: the harness resumes the session, the page's
      // history comes back from IndexedDB (saved after every turn).
      .conversationId(tabConversationId())
      .sessionContinuationMode("createOrResume")
      .conversationStore(conversationStore)
      .tool(readPage)
      .confirmRunCommand(confirmInDialog) // ask in a <dialog> before any run_command; allow the rest
      .build()
      .start({ timeoutMs: 20_000 })
  );
}

/** Draws everything the transcript state decides: the turns, usage, connection and errors. */
function draw(state: TranscriptState): void {
  renderTranscript(ui.transcript, state);
  if (state.messages.length > 0) ui.usage.textContent = describeUsage(state.usage);
  const last = state.messages.at(-1);
  // A failed turn or a lost connection shows its error; the user's own Stop does not.
  const failure =
    state.disconnectReason ??
    (last?.role === "assistant" && (last.status === "error" || last.status === "disconnected")
      ? last.error
      : undefined);
  if (failure !== undefined) showError(failure);
  else if (state.running) ui.error.hidden = true;
  if (state.connection === "disconnected") setStatus("disconnected", "disconnected");
  else setStatus(state.running ? "busy" : "connected", state.running ? "agent is working…" : "connected");
  setIdle(!state.running, state.connection === "connected");
}

async function main(): Promise<void> {
  setStatus("connecting", "connecting…");
  let agent: StartedAgent;
  try {
    agent = await connect();
  } catch (error) {
    setStatus("disconnected", "not connected");
    showError(error);
    return;
  }
  const conversation = agent.conversation();
  // The turns of this tab's conversation before a reload, drawn before the page is usable.
  const restored = await conversation.turnCount();
  const transcript = new Transcript(restored > 0 ? { usage: await conversation.totalUsage() } : {});
  transcript.restore(await conversation.history(), await conversation.turnStartIndices());
  document.body.dataset["restoredTurns"] = String(restored);
  document.body.dataset["resumedSteps"] = String(agent.connection.initialHistory.length); // what the harness replayed (§5)
  document.body.dataset["turns"] = String(restored);
  transcript.subscribe(draw);
  draw(transcript.state);
  // A harness or gateway that goes away shows at once, even while no turn runs.
  agent.connection.onClosed?.((reason) => transcript.connectionClosed(reason));
  ui.prompt.focus();
  let stream: ChatStream | undefined;

  // Stop cancels the turn (protocol §13 halt): the transcript shows it stopped, not failed.
  ui.stop.addEventListener("click", () => void stream?.abort());
  window.addEventListener("pagehide", () => void agent.stop());
  ui.prompt.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      ui.form.requestSubmit();
    }
  });

  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const prompt = ui.prompt.value.trim();
    if (prompt === "" || transcript.state.running || transcript.state.connection !== "connected") return;
    ui.prompt.value = "";
    stream = conversation.chat(prompt);
    void transcript.follow(stream, prompt).then(() => {
      stream = undefined;
      document.body.dataset["turns"] = String(Number(document.body.dataset["turns"] ?? "0") + 1);
    });
  });
}

void main();
