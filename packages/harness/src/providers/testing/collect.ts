/**
 * Small helpers for provider tests: drain a provider stream, summarise it, capture its error.
 */
import type { ModelEvent, ModelProvider, ModelRequest, ModelToolCall, ModelUsage } from "../../model/provider.js";

/** Drains a provider stream into an array. */
export async function collectEvents(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The joined deltas, tool calls and usage events of a provider stream. */
export interface EventSummary {
  thinking: string;
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage[];
}

/** Summarises collected events. */
export function summarizeEvents(events: readonly ModelEvent[]): EventSummary {
  const summary: EventSummary = { thinking: "", text: "", toolCalls: [], usage: [] };
  for (const event of events) {
    if (event.type === "thinking") summary.thinking += event.delta;
    else if (event.type === "text") summary.text += event.delta;
    else if (event.type === "toolCall") summary.toolCalls.push(event.call);
    else summary.usage.push(event.usage);
  }
  return summary;
}

/** Runs one model call to its end (never aborted) and summarises it. */
export async function summarizeTurn(provider: ModelProvider, request: ModelRequest): Promise<EventSummary> {
  return summarizeEvents(await collectEvents(provider.generate(request, new AbortController().signal)));
}

/** Resolves with what `promise` rejects with; fails if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
