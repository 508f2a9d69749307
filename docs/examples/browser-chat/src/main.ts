/**
 * Browser chat: a page that talks to an Antigravity harness through the gateway of
 * `@antigravity-ts/node` (server.mjs). The page holds no harness key, only a per-server token.
 * It streams thinking and text, draws tool calls as cards, runs a client tool in the page, asks
 * before any run_command, shows token usage, and keeps the conversation across reloads (IndexedDB).
 */
import { Agent, ErrorCode, SdkError, WebSocketTransport, type StartedAgent } from "@antigravity-ts/sdk";
import { confirmInDialog } from "./confirm-dialog.js";
import { readPage } from "./page-tools.js";
import { conversationStore, renderRestoredTurns, tabConversationId } from "./saved-conversation.js";
import { AgentTurnView, describeUsage } from "./transcript.js";

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

/** Codes after which this session is gone: the page must be reloaded to start a new one. */
const FATAL: readonly string[] = [ErrorCode.ConnectionClosed, ErrorCode.HarnessCrashed, ErrorCode.Unavailable, ErrorCode.PermissionDenied];

function setIdle(idle: boolean, usable: boolean): void {
  ui.prompt.disabled = !usable || !idle;
  ui.send.disabled = !usable || !idle;
  ui.stop.hidden = idle;
}

/** The tools this page runs itself. */
const clientTools = new Set([readPage.name]);

async function connect(): Promise<StartedAgent> {
  const config = (await (await fetch("/config.json", { cache: "no-store" })).json()) as PageConfig;
  const url = new URL(config.gatewayPath, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("token", config.token);
  // No apiKey here: the gateway adds the harness key. Only the page's token travels.
  return Agent.builder()
    .transport(new WebSocketTransport({ url: url.href }))
    // A reload continues this tab's conversation: the harness resumes the session, the page's
    // history comes back from IndexedDB (saved after every turn).
    .conversationId(tabConversationId())
    .sessionContinuationMode("createOrResume")
    .conversationStore(conversationStore)
    .tool(readPage)
    .confirmRunCommand(confirmInDialog) // ask in a <dialog> before any run_command; allow the rest
    .build()
    .start({ timeoutMs: 20_000 });
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
  // The turns of this tab's conversation before a reload, drawn before the page is usable.
  const restored = await agent.conversation().turnCount();
  renderRestoredTurns(ui.transcript, await agent.conversation().history(), await agent.conversation().turnStartIndices(), clientTools);
  if (restored > 0) ui.usage.textContent = describeUsage(await agent.conversation().totalUsage());
  document.body.dataset["restoredTurns"] = String(restored);
  document.body.dataset["resumedSteps"] = String(agent.connection.initialHistory.length); // what the harness replayed (§5)
  document.body.dataset["turns"] = String(restored);
  setStatus("connected", "connected");
  setIdle(true, true);
  ui.prompt.focus();
  const conversation = agent.conversation();
  let busy = false;
  let usable = true;

  // Stop asks the harness to halt the turn (protocol §13); the step stream then ends normally.
  ui.stop.addEventListener("click", () => void agent.connection.halt().catch(showError));
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
    if (prompt === "" || busy || !usable) return;
    busy = true;
    ui.prompt.value = "";
    ui.error.hidden = true;
    const view = new AgentTurnView(ui.transcript, prompt, clientTools);
    setIdle(false, true);
    setStatus("busy", "agent is working…");
    void (async () => {
      try {
        await conversation.send(prompt);
        for await (const step of conversation.receiveSteps()) view.render(step);
        ui.usage.textContent = describeUsage(await conversation.totalUsage());
        setStatus("connected", "connected");
      } catch (error) {
        showError(error);
        if (FATAL.includes(SdkError.from(error).code)) {
          usable = false;
          setStatus("disconnected", "disconnected");
        } else {
          setStatus("connected", "connected");
        }
      } finally {
        busy = false;
        setIdle(true, usable);
        document.body.dataset["turns"] = String(Number(document.body.dataset["turns"] ?? "0") + 1);
      }
    })();
  });
}

void main();
