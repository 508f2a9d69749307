import type {
  AssistantMessage,
  ToolCard,
  TranscriptBlock,
  TranscriptMessage,
  TranscriptState,
  UsageMetadata,
} from "@antigravity-ts/sdk";

/**
 * Draws a {@link TranscriptState} into the page's `<ol id="transcript">`. The SDK's `Transcript`
 * does all the bookkeeping (pairing steps, card states, turn status); this file is only DOM. A
 * message the state did not replace is not touched, and a changed one is updated in place, so
 * a card keeps its element while its `data-status` goes running → done.
 */
export function renderTranscript(list: HTMLElement, state: TranscriptState): void {
  state.messages.forEach((message, index) => {
    let item = list.children[index] as HTMLElement | undefined;
    if (item === undefined || item.dataset["id"] !== message.id) {
      item = element("li", message.role === "user" ? "turn user" : "turn agent");
      item.dataset["id"] = message.id;
      list.insertBefore(item, list.children[index] ?? null);
    }
    if (drawn.get(item) === message) return; // unchanged since the last draw
    drawn.set(item, message);
    if (message.role === "user") drawUser(item, message);
    else drawAgent(item, message);
    if (index === state.messages.length - 1) item.scrollIntoView({ block: "end" });
  });
  while (list.children.length > state.messages.length) list.lastElementChild?.remove();
}

/** The message each list item shows now. */
const drawn = new WeakMap<HTMLElement, TranscriptMessage>();

function drawUser(item: HTMLElement, message: Extract<TranscriptMessage, { role: "user" }>): void {
  if (item.firstElementChild === null) item.append(element("div", "bubble", message.text));
}

function drawAgent(item: HTMLElement, message: AssistantMessage): void {
  item.dataset["status"] = message.status;
  message.blocks.forEach((block, index) => {
    let node = item.children[index] as HTMLElement | undefined;
    if (node === undefined || node.dataset["block"] !== block.type) {
      node = blockElement(block);
      item.insertBefore(node, item.children[index] ?? null);
    }
    drawBlock(node, block);
  });
  // After the blocks: how the turn ended, unless it simply finished.
  let ending = item.querySelector<HTMLElement>(":scope > .ending");
  const text = endingText(message);
  if (text === undefined) ending?.remove();
  else {
    ending ??= element("div", "ending");
    ending.dataset["status"] = message.status;
    ending.textContent = text;
    item.append(ending);
  }
}

/** The note under a turn that did not simply finish: a Stop is not an error. */
function endingText(message: AssistantMessage): string | undefined {
  switch (message.status) {
    case "stopped":
      return "Stopped.";
    case "disconnected":
      return "Disconnected before the turn ended.";
    case "error":
      return `Failed: ${message.error?.message ?? "unknown error"}`;
    default:
      return undefined;
  }
}

function blockElement(block: TranscriptBlock): HTMLElement {
  let node: HTMLElement;
  if (block.type === "thinking") node = element("div", "thought");
  else if (block.type === "text") node = element("div", "bubble text");
  else {
    node = element("div", "tool");
    node.dataset["tool"] = block.name;
    node.setAttribute("role", "status");
    node.append(
      element("span", "icon"),
      element("span", "name", block.name),
      element("span", "args"),
      element("span", "outcome"),
    );
  }
  node.dataset["block"] = block.type;
  return node;
}

function drawBlock(node: HTMLElement, block: TranscriptBlock): void {
  if (block.type !== "tool") {
    if (node.textContent !== block.text) node.textContent = block.text;
    return;
  }
  node.dataset["kind"] = block.client ? "client" : "builtin";
  node.dataset["status"] = block.state;
  setText(node, ".args", clip(JSON.stringify(block.args ?? {})));
  setText(node, ".outcome", outcomeText(block));
}

function outcomeText(card: ToolCard): string {
  switch (card.state) {
    case "done":
      return `→ ${clip(JSON.stringify(card.result ?? null))}`;
    case "error":
      return card.error || "failed";
    case "awaiting-approval":
      return "waiting for your approval";
    case "cancelled":
      return "cancelled";
    default:
      return "";
  }
}

function setText(node: HTMLElement, selector: string, text: string): void {
  const target = node.querySelector<HTMLElement>(selector);
  if (target !== null && target.textContent !== text) target.textContent = text;
}

/** DOM helper: an element with a class and optional text. */
function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text = "",
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

/** A card shows the start of long arguments and results (a directory listing can be long). */
function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "Tokens: 120 in · 48 out · 30 thinking · 198 total". */
export function describeUsage(usage: UsageMetadata): string {
  return `Tokens: ${usage.promptTokenCount} in · ${usage.candidatesTokenCount} out · ${usage.thoughtsTokenCount} thinking · ${usage.totalTokenCount} total`;
}
