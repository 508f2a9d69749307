import type { ModelMessage } from "./model/provider.js";

/** Threshold used when `compactionThreshold` is 0 or unset (§15, §18.2). */
export const DEFAULT_COMPACTION_THRESHOLD = 50_000;
const SUMMARY_ITEM_CHARS = 160;
const SUMMARY_ITEMS = 24;

/** Token estimate of a transcript: ceil(characters / 4), the usual rule of thumb. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/** Start of the user message that carries a summary. */
export const SUMMARY_PREFIX = "[conversation summary]";

/** A compacted transcript and the summary that replaced its head. */
export interface Compaction {
  transcript: ModelMessage[];
  summary: string;
  compactedMessages: number;
}

/**
 * Replaces `transcript[0, keepFrom)` with a deterministic summary (§15), keeping the current
 * turn (`keepFrom` onwards) verbatim. Returns undefined when there is nothing before `keepFrom`.
 * The summary is built from the messages themselves, without a model call, so every provider
 * compacts the same way and a compaction never fails.
 */
export function compactTranscript(transcript: readonly ModelMessage[], keepFrom: number): Compaction | undefined {
  const head = transcript.slice(0, keepFrom);
  if (head.length === 0) return undefined;
  const items = head.flatMap(describeMessage);
  const shown = items.slice(-SUMMARY_ITEMS);
  const summary = [
    `Summary of the earlier conversation (${head.length} messages compacted${shown.length < items.length ? `; the last ${shown.length} events shown` : ""}):`,
    ...shown.map((item) => `- ${item}`),
  ].join("\n");
  return {
    summary,
    compactedMessages: head.length,
    transcript: [
      { role: "user", text: `${SUMMARY_PREFIX}\n${summary}` },
      { role: "model", text: "(earlier conversation summarised)", toolCalls: [] },
      ...transcript.slice(keepFrom),
    ],
  };
}

function describeMessage(message: ModelMessage): string[] {
  switch (message.role) {
    case "user":
      return [`user: ${clip(message.text)}`];
    case "model": {
      const calls = message.toolCalls.map((call) => `model called ${call.name}(${clip(JSON.stringify(call.args))})`);
      return message.text === "" ? calls : [`model: ${clip(message.text)}`, ...calls];
    }
    case "tool":
      return message.results.map((result) => `${result.name} returned ${clip(JSON.stringify(result.response))}`);
  }
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_ITEM_CHARS ? `${flat.slice(0, SUMMARY_ITEM_CHARS)}…` : flat;
}
