import { jsonForEstimate, type ModelMedia } from "../model/media.js";
import type { ModelMessage } from "../model/provider.js";
import type { Transcript } from "./model-transcript.js";
import { estimateTextTokens } from "../model/usage.js";

/** Threshold used when `compactionThreshold` is 0 or unset (§15, §18.2). */
export const DEFAULT_COMPACTION_THRESHOLD = 50_000;
const SUMMARY_ITEM_CHARS = 160;
const SUMMARY_ITEMS = 24;

/**
 * When a session compacts (§15): past `compactionThreshold` tokens of context (0 = no
 * ceiling), or once the messages since the last compaction — the checkpoint — reach
 * `checkpointIntervalTokens` (`HarnessConfig.compaction_config`, upstream localharness.proto
 * @774cb8d; 0 = off). Upstream's client sends the interval equal to `compaction_threshold`.
 */
export interface CompactionPolicy {
  readonly compactionThreshold: number;
  readonly checkpointIntervalTokens: number;
}

/** Whether `transcript` is due for a compaction under `policy`. */
export function shouldCompact(transcript: Transcript, policy: CompactionPolicy): boolean {
  if (policy.compactionThreshold > 0 && estimateTokens(transcript.forProvider()) > policy.compactionThreshold)
    return true;
  // The summaries and the kept first prompt are the checkpoint; the hot zone is what came after it.
  return policy.checkpointIntervalTokens > 0 && estimateTokens(transcript.messages) >= policy.checkpointIntervalTokens;
}

/** Token estimate of messages: ceil(characters of their JSON / 4), media counted by what they cost (model/media.ts). */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return estimateTextTokens(jsonForEstimate(messages));
}

/** What one compaction did. */
export interface Compaction {
  summary: string;
  compactedMessages: number;
}

/**
 * Compacts `transcript` (§15): the messages before `keepFrom` (moved forward so a tool result is
 * never cut from its call) become one deterministic summary, built from the messages themselves
 * without a model call so every provider compacts the same way and a compaction never fails. The
 * transcript keeps the first real user prompt and its three newest summaries (seed 002).
 * Returns undefined when there is nothing before `keepFrom`.
 */
export function compactTranscript(transcript: Transcript, keepFrom: number): Compaction | undefined {
  const cut = transcript.validCut(keepFrom);
  const head = transcript.messages.slice(0, cut);
  if (head.length === 0) return undefined;
  const summary = summarize(head);
  transcript.compact(cut, summary);
  return { summary, compactedMessages: head.length };
}

/** The summary of `messages`: one line per event, the last {@link SUMMARY_ITEMS} shown. */
export function summarize(messages: readonly ModelMessage[]): string {
  const items = messages.flatMap(describeMessage);
  const shown = items.slice(-SUMMARY_ITEMS);
  return [
    `Summary of the earlier conversation (${messages.length} messages compacted${shown.length < items.length ? `; the last ${shown.length} events shown` : ""}):`,
    ...shown.map((item) => `- ${item}`),
  ].join("\n");
}

function describeMessage(message: ModelMessage): string[] {
  switch (message.role) {
    case "user":
      return [`user: ${clip(message.text)}${attached(message.media)}`];
    case "model": {
      const calls = message.toolCalls.map((call) => `model called ${call.name}(${clip(JSON.stringify(call.args))})`);
      return message.text === "" ? calls : [`model: ${clip(message.text)}`, ...calls];
    }
    case "tool":
      return message.results.map(
        (result) => `${result.name} returned ${clip(JSON.stringify(result.response))}${attached(result.media)}`,
      );
  }
}

/** What a summary says of media it cannot keep. */
function attached(media: readonly ModelMedia[] | undefined): string {
  return media === undefined || media.length === 0 ? "" : ` [attached: ${media.map((m) => m.mimeType).join(", ")}]`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_ITEM_CHARS ? `${flat.slice(0, SUMMARY_ITEM_CHARS)}…` : flat;
}
