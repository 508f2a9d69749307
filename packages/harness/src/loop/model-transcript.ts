import type { ModelMedia } from "../model/media.js";
import type { ModelMessage, ModelToolCall, ModelToolResult } from "../model/provider.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

// The model-facing transcript of a session, with seed 002's guarantees (the Rust `Conversation`:
// cancel_current_turn, cancel_current_turn_including_user, to_provider_messages_windowed,
// apply_compression with at most three cold summaries).

/** The error a tool call gets when its turn stopped before it produced a result (seed 002). */
export const CANCELLED_RESULT = "(cancelled)";

/** Cold summaries kept at most; the oldest is dropped first (seed 002's cold zone). */
export const MAX_SUMMARIES = 3;

/** Start of the user message that carries a summary (also the marker of pre-summaries files). */
export const SUMMARY_PREFIX = "[conversation summary]";

/** Start of the user message an `automatedTrigger` adds (§13). */
export const TRIGGER_PREFIX = "[automated trigger]";

/** Starts a system message the harness adds to a running turn (a STOP hook's CONTINUE reason). */
export const SYSTEM_MESSAGE_PREFIX = "[system message]";

/** The model's side of the summary block, so the conversation keeps alternating. */
export const SUMMARY_ACK = "(earlier conversation summarised)";

/** What a {@link Transcript} stores (storage.ts keeps it in the session file). */
export interface TranscriptData {
  /** The hot zone: messages after the last compaction. */
  messages: ModelMessage[];
  /** The cold zone: summaries of compacted messages, oldest first, at most {@link MAX_SUMMARIES}. */
  summaries: string[];
  /** The session's first real user prompt, once a compaction removed it from `messages`. */
  firstPrompt?: string;
}

/** A model answer, complete or cut short by a halt. */
export interface ModelAnswer {
  text: string;
  thinking: string;
  toolCalls: ModelToolCall[];
}

/**
 * The conversation as the model sees it. The agent loop appends to it; it keeps the sequence
 * valid for every provider:
 *
 * - {@link cancelTurn} (halt, disconnect) keeps what the model already streamed and gives every
 *   tool call without a result a `(cancelled)` result, so the model can see what it did;
 * - {@link cancelTurnIncludingUser} (error exits) also drops the turn's unanswered user messages:
 *   an orphan prompt followed by the next one confuses OpenAI-compatible models;
 * - {@link compact} summarises the head of the conversation into at most three summaries (first
 *   in, first out), keeps the first real user prompt, and never cuts between a call and its result;
 * - {@link forProvider} is what a model call sends: the first prompt and summaries, then the
 *   messages, with consecutive user messages merged and every call paired with one result.
 */
export class Transcript {
  #messages: ModelMessage[];
  #summaries: string[];
  #firstPrompt: string | undefined;
  /** Index of the current turn's first message in `#messages`. */
  #turnStart: number;

  constructor(data: Partial<TranscriptData> = {}) {
    // A stored transcript may come from a harness that died mid-turn: repair it on the way in.
    this.#messages = pairCalls(structuredClone(data.messages ?? []), false);
    this.#summaries = [...(data.summaries ?? [])].slice(-MAX_SUMMARIES);
    this.#firstPrompt = data.firstPrompt;
    this.#turnStart = this.#messages.length;
  }

  /** The hot zone (after compactions). */
  get messages(): readonly ModelMessage[] {
    return this.#messages;
  }

  get summaries(): readonly string[] {
    return this.#summaries;
  }

  get firstPrompt(): string | undefined {
    return this.#firstPrompt;
  }

  /** Index in {@link messages} where the current turn starts. */
  get turnStart(): number {
    return this.#turnStart;
  }

  /** Starts a turn with the user's prompt and its media (images, documents, audio). */
  startTurn(text: string, media: readonly ModelMedia[] = []): void {
    this.#turnStart = this.#messages.length;
    this.#messages.push(userMessage(text, media));
  }

  /** Adds a user message to the running turn (a trigger, §13). */
  addUser(text: string): void {
    this.#messages.push({ role: "user", text });
  }

  /** Adds a model answer; a partial one (halt) with nothing in it adds nothing. */
  addModel(answer: ModelAnswer): void {
    if (answer.text === "" && answer.thinking === "" && answer.toolCalls.length === 0) return;
    this.#messages.push({
      role: "model",
      text: answer.text,
      ...(answer.thinking ? { thinking: answer.thinking } : {}),
      toolCalls: [...answer.toolCalls],
    });
  }

  /** Records the result of an open tool call (results of one answer share one message). */
  addToolResult(result: ModelToolResult): void {
    if (!this.openCalls().some((call) => call.id === result.id))
      throw new Error(`tool result for ${JSON.stringify(result.id)}, which is not an open call`);
    const last = this.#messages.at(-1);
    if (last?.role === "tool") last.results.push(result);
    else this.#messages.push({ role: "tool", results: [result] });
  }

  /** Tool calls of the latest model answer that have no result yet. */
  openCalls(): ModelToolCall[] {
    let answered = new Set<string>();
    for (let i = this.#messages.length - 1; i >= 0; i--) {
      const message = this.#messages[i] as ModelMessage;
      if (message.role === "tool") answered = new Set([...answered, ...message.results.map((r) => r.id)]);
      else if (message.role === "model") return message.toolCalls.filter((call) => !answered.has(call.id));
      else return [];
    }
    return [];
  }

  /** Gives every open call the result `{error}`. */
  closeOpenCalls(error: string): void {
    for (const call of this.openCalls()) this.addToolResult({ id: call.id, name: call.name, response: { error } });
  }

  /** Halt or disconnect (seed 002 `cancel_current_turn`): keep what was said and done, close the open calls. */
  cancelTurn(): void {
    this.closeOpenCalls(CANCELLED_RESULT);
  }

  /**
   * Error exit (seed 002 `cancel_current_turn_including_user`): close the open calls and drop the
   * turn's trailing user messages that got no answer.
   */
  cancelTurnIncludingUser(): void {
    this.closeOpenCalls(CANCELLED_RESULT);
    while (this.#messages.length > this.#turnStart && this.#messages.at(-1)?.role === "user") this.#messages.pop();
  }

  /**
   * Where a compaction that wants to keep `messages[keepFrom…]` may cut: never on a tool result
   * (its call would be summarised away), so the cut moves forward past results.
   */
  validCut(keepFrom: number): number {
    let cut = Math.max(0, Math.min(keepFrom, this.#messages.length));
    while (cut < this.#messages.length && this.#messages[cut]?.role === "tool") cut++;
    return cut;
  }

  /**
   * Seed 002 `apply_compression`: replaces `messages[0, cut)` by `summary` (cut per {@link validCut}).
   * The first real user prompt is kept apart; summaries beyond {@link MAX_SUMMARIES} are dropped,
   * oldest first. Returns the number of messages removed (0: nothing to compact).
   */
  compact(keepFrom: number, summary: string): number {
    const cut = this.validCut(keepFrom);
    if (cut === 0) return 0;
    const head = this.#messages.slice(0, cut);
    this.#firstPrompt ??= head.find(
      (m): m is Extract<ModelMessage, { role: "user" }> => m.role === "user" && isRealPrompt(m.text),
    )?.text;
    this.#summaries.push(summary);
    this.#summaries.splice(0, Math.max(0, this.#summaries.length - MAX_SUMMARIES));
    this.#messages = this.#messages.slice(cut);
    this.#turnStart = Math.max(0, this.#turnStart - cut);
    return cut;
  }

  /**
   * The messages a model call sends: the kept first prompt and the summaries as one user message
   * (acknowledged by the model), then the hot zone — normalised by {@link providerMessages}.
   */
  forProvider(): ModelMessage[] {
    const blocks = [
      ...(this.#firstPrompt === undefined ? [] : [this.#firstPrompt]),
      ...this.#summaries.map((s) => `${SUMMARY_PREFIX}\n${s}`),
    ];
    const head: ModelMessage[] = blocks.length === 0 ? [] : [{ role: "user", text: blocks.join("\n\n") }];
    // The acknowledgement keeps the roles alternating when the hot zone starts with a prompt.
    if (blocks.length > 0 && this.#messages[0]?.role !== "model")
      head.push({ role: "model", text: SUMMARY_ACK, toolCalls: [] });
    return providerMessages([...head, ...this.#messages]);
  }

  /** A copy of what is stored. */
  toData(): TranscriptData {
    return {
      messages: structuredClone(this.#messages),
      summaries: [...this.#summaries],
      ...definedProperties({ firstPrompt: this.#firstPrompt }),
    };
  }
}

/** Whether a user message is a prompt someone wrote (not a summary, a trigger or a system message). */
export function isRealPrompt(text: string): boolean {
  return (
    !text.startsWith(SUMMARY_PREFIX) && !text.startsWith(TRIGGER_PREFIX) && !text.startsWith(SYSTEM_MESSAGE_PREFIX)
  );
}

/**
 * Normalises messages for a provider (seed 002 `to_provider_messages_windowed`'s boundary
 * rules, applied to any window):
 *
 * - model messages with neither text nor calls are dropped (thinking is never sent back);
 * - every tool call gets exactly one result before the next user or model message — a missing
 *   one becomes `(cancelled)`, results without a call (a window that started on them) and
 *   repeated ones are dropped, so the sequence never starts on a tool result nor ends on a call
 *   without its result;
 * - consecutive user messages are merged (blank line between; `promptStarts` says where each
 *   begins), and so are consecutive answers.
 */
export function providerMessages(messages: readonly ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of pairCalls(
    messages.filter((m) => m.role !== "model" || m.text !== "" || m.toolCalls.length > 0),
    true,
  )) {
    const last = out.at(-1);
    if (message.role === "user" && last?.role === "user") {
      const merged = userMessage(`${last.text}\n\n${message.text}`, [...(last.media ?? []), ...(message.media ?? [])]);
      out[out.length - 1] = { ...merged, promptStarts: [...(last.promptStarts ?? [0]), last.text.length + 2] };
    } else if (message.role === "model" && last?.role === "model" && last.toolCalls.length === 0) {
      out[out.length - 1] = {
        role: "model",
        text: [last.text, message.text].filter((t) => t !== "").join("\n\n"),
        toolCalls: message.toolCalls,
      };
    } else out.push(message);
  }
  return out;
}

/**
 * Pairs every call with exactly one result, in place of the results that follow its answer.
 * `dropThinking` leaves out the thinking (providers never get it back).
 */
function pairCalls(messages: readonly ModelMessage[], dropThinking: boolean): ModelMessage[] {
  const out: ModelMessage[] = [];
  let open: ModelToolCall[] = [];
  let results: ModelToolResult[] = [];
  const settle = (): void => {
    if (open.length === 0) {
      results = []; // results of no call of the previous answer: dropped
      return;
    }
    // Results in the order they came, then the missing ones in call order.
    const missing = open.filter((call) => !results.some((r) => r.id === call.id));
    out.push({
      role: "tool",
      results: [
        ...results,
        ...missing.map((call) => ({ id: call.id, name: call.name, response: { error: CANCELLED_RESULT } })),
      ],
    });
    open = [];
    results = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      for (const result of message.results) {
        if (open.some((call) => call.id === result.id) && !results.some((r) => r.id === result.id))
          results.push(result);
      }
      continue;
    }
    settle();
    if (message.role === "user") out.push(userMessage(message.text, message.media ?? []));
    else {
      open = uniqueCalls(message.toolCalls);
      out.push({
        role: "model",
        text: message.text,
        ...(message.thinking && !dropThinking ? { thinking: message.thinking } : {}),
        toolCalls: [...open],
      });
    }
  }
  settle();
  return out;
}

/** A user message; `media` only when there is some. */
function userMessage(text: string, media: readonly ModelMedia[]): Extract<ModelMessage, { role: "user" }> {
  return media.length === 0 ? { role: "user", text } : { role: "user", text, media: [...media] };
}

/** The calls with distinct ids, first of each kept. */
export function uniqueCalls(calls: readonly ModelToolCall[]): ModelToolCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => !seen.has(call.id) && (seen.add(call.id), true));
}
