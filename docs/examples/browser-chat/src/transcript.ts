import { StepStatus, StepType, SYNTHETIC_STEP_INDEX_BASE, stepToChunks, type Step, type UsageMetadata } from "@antigravity-ts/sdk";

/** DOM helper: an element with a class and optional text. */
function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text = ""): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

/**
 * One agent turn in the transcript: streamed thinking and text (from the chunk rules of
 * `stepToChunks`), and a card per tool call, drawn from the call's steps — for client tools the
 * SDK's synthetic ACTIVE → DONE/ERROR steps (indices from 50 000), for built-in tools the
 * harness's own steps. A card spins while its step is ACTIVE.
 */
export class AgentTurnView {
  readonly #root: HTMLElement;
  readonly #clientTools: ReadonlySet<string>;
  readonly #seenCalls = new Set<string>();
  readonly #cards = new Map<string, HTMLElement>();
  #thought: HTMLElement | undefined;
  #text: HTMLElement | undefined;

  /** `clientTools`: names of the tools this page registered; their cards follow the synthetic steps only. */
  constructor(list: HTMLElement, prompt: string, clientTools: ReadonlySet<string>) {
    this.#clientTools = clientTools;
    const user = element("li", "turn user");
    user.append(element("div", "bubble", prompt));
    this.#root = element("li", "turn agent");
    list.append(user, this.#root);
  }

  /** Renders one step update. */
  render(step: Step): void {
    for (const chunk of stepToChunks(step, this.#seenCalls)) {
      if (chunk.type === "thought") this.#append("thought", chunk.text);
      else if (chunk.type === "text") this.#append("text", chunk.text);
    }
    if (step.type === StepType.ToolCall && step.toolCalls[0] !== undefined) this.#card(step);
    this.#root.scrollIntoView({ block: "end" });
  }

  #append(kind: "thought" | "text", text: string): void {
    // A new block after a tool card, so thinking and text read in the order they happened.
    const current = kind === "thought" ? this.#thought : this.#text;
    const block = current !== undefined && current === this.#root.lastElementChild ? current : this.#root.appendChild(element("div", kind === "thought" ? "thought" : "bubble text"));
    block.textContent += text;
    if (kind === "thought") this.#thought = block;
    else this.#text = block;
  }

  #card(step: Step): void {
    const call = step.toolCalls[0];
    if (call === undefined) return;
    const synthetic = step.stepIndex >= SYNTHETIC_STEP_INDEX_BASE;
    // The harness also reports a client tool's call as one of its own steps; the SDK's synthetic
    // steps tell the story of the call as it ran here, so only those draw the card.
    if (!synthetic && this.#clientTools.has(call.name)) return;
    const key = synthetic ? `client:${call.id}` : step.id;
    let card = this.#cards.get(key);
    if (card === undefined) {
      card = element("div", "tool");
      card.dataset["tool"] = call.name;
      card.dataset["kind"] = synthetic ? "client" : "builtin";
      card.append(element("span", "icon"), element("span", "name", call.name), element("span", "detail"));
      card.setAttribute("role", "status");
      this.#cards.set(key, card);
      this.#root.append(card);
    }
    card.dataset["status"] = step.status;
    const detail = card.querySelector<HTMLElement>(".detail");
    if (detail === null) return;
    if (step.status === StepStatus.Error || step.status === StepStatus.Canceled) detail.textContent = step.error || "failed";
    else if (step.status === StepStatus.Done && card.dataset["kind"] === "client") detail.textContent = `→ ${clip(step.content)}`;
    else detail.textContent = clip(JSON.stringify(call.args));
  }
}

/** A card shows the start of long arguments and results (a directory listing can be long). */
function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "Tokens: 120 in · 48 out · 30 thinking · 198 total". */
export function describeUsage(usage: UsageMetadata): string {
  return `Tokens: ${usage.promptTokenCount} in · ${usage.candidatesTokenCount} out · ${usage.thoughtsTokenCount} thinking · ${usage.totalTokenCount} total`;
}
