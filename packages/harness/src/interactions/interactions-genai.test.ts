import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { GoogleGenAI } from "@google/genai";
import { harnessEnv, spawnHarness, type HarnessProcess } from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEvent, checkInteraction } from "./wire-shape.js";

// Google's own client, @google/genai 3.x, against `antigravity-harness --listen --interactions-api`
// (a real process on a real socket): create with and without stream, resume by event id,
// background and cancel, client function calls answered by the next request, errors. Every event
// and resource goes through the shape checks of wire-shape.ts (the client does not validate).

const KEY = "interactions-test-key-0123456789";
const AGENT = "antigravity-preview-09-2026";
const SLOW_WORDS = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");

const script = {
  turns: [
    { match: "hello", calls: [{ thinking: "Short.", text: "Hello there." }] },
    {
      match: "list",
      calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
    },
    {
      match: "weather",
      calls: [{ toolCalls: [{ name: "$client", args: { city: "Paris" } }] }, { text: "Done with the weather." }],
    },
    { match: "slow", calls: [{ text: SLOW_WORDS, chunkWords: 1, chunkDelayMs: 60 }] },
    { match: "broken", calls: [{ error: { message: "the model is broken", httpCode: 400 } }] },
    { calls: [{ text: "Again." }] },
  ],
};

let root = "";
let harness: HarnessProcess | undefined;
let baseUrl = "";
let ai: GoogleGenAI;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-interactions-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "notes.txt"), "hi\n");
  await writeFile(path.join(root, "script.json"), JSON.stringify(script));
  harness = spawnHarness(
    [
      "--listen",
      "127.0.0.1:0",
      "--interactions-api",
      "--workspace",
      workspace,
      "--script",
      path.join(root, "script.json"),
    ],
    {
      env: { ...harnessEnv(), ANTIGRAVITY_API_KEY: KEY },
    },
  );
  const line = await harness.waitForStderr(/listening on http:\/\/127\.0\.0\.1:\d+\//);
  baseUrl = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0] ?? "";
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
}, 60_000);

afterAll(async () => {
  if (harness !== undefined && harness.child.exitCode === null) {
    harness.child.kill("SIGTERM");
    await harness.exited;
  }
  if (root !== "") await rm(root, { recursive: true, force: true });
});

type Event = Record<string, unknown> & { event_type: string; event_id?: string };

async function collect(stream: AsyncIterable<unknown>, stopAfter?: (event: Event) => boolean): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) {
    expect(checkEvent(event)).toEqual([]);
    events.push(event as Event);
    if (stopAfter?.(event as Event) === true) break;
  }
  return events;
}

const text = (events: Event[]): string =>
  events
    .filter((e) => e.event_type === "step.delta" && (e["delta"] as { type: string }).type === "text")
    .map((e) => (e["delta"] as { text: string }).text)
    .join("");
const finalStatus = (events: Event[]): unknown =>
  (events.at(-1)?.["interaction"] as { status?: string } | undefined)?.status;

describe("@google/genai against the interactions emulator", () => {
  it("streams a turn: created, a thought and a model output step with deltas, status update, completed, every event with an id", async () => {
    const events = await collect(await ai.interactions.create({ agent: AGENT, input: "hello", stream: true }));
    expect(events[0]?.event_type).toBe("interaction.created");
    expect(events.at(-1)?.event_type).toBe("interaction.completed");
    expect(finalStatus(events)).toBe("completed");
    expect(text(events)).toBe("Hello there.");
    const starts = events.filter((e) => e.event_type === "step.start").map((e) => (e["step"] as { type: string }).type);
    expect(starts).toEqual(["thought", "model_output"]);
    const thought = events.filter(
      (e) => e.event_type === "step.delta" && (e["delta"] as { type: string }).type === "thought_summary",
    );
    expect(thought.map((e) => (e["delta"] as { content: { text: string } }).content.text).join("")).toBe("Short.");
    const ids = events.map((e) => e.event_id);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const update = events.find((e) => e.event_type === "interaction.status_update");
    expect(update?.["status"]).toBe("completed");
    expect((update?.["usage"] as { total_tokens?: number } | undefined)?.total_tokens).toBeGreaterThan(0);
  });

  it("answers create without stream with the finished Interaction, and get returns the same resource", async () => {
    const interaction = await ai.interactions.create({ agent: AGENT, input: "hello" });
    expect(checkInteraction(interaction)).toEqual([]);
    expect(interaction.status).toBe("completed");
    expect(interaction.steps?.map((s) => s.type)).toEqual(["thought", "model_output"]);
    expect(interaction.output_text).toBe("Hello there."); // added by the client from the last model_output
    const again = await ai.interactions.get(interaction.id);
    expect(checkInteraction(again)).toEqual([]);
    expect(again.steps).toEqual(interaction.steps);
  });

  it("continues a conversation through previous_interaction_id", async () => {
    const first = await ai.interactions.create({ agent: AGENT, input: "hello" });
    const second = await ai.interactions.create({
      agent: AGENT,
      input: "and again",
      previous_interaction_id: first.id,
    });
    expect(second.status).toBe("completed");
    expect(second.previous_interaction_id).toBe(first.id);
    expect(second.output_text).toBe("Again.");
    await expect(
      ai.interactions.create({ agent: AGENT, input: "hello", previous_interaction_id: first.id }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });

  it("runs a hosted tool: a function_call step and its function_result, run by the server", async () => {
    const events = await collect(await ai.interactions.create({ agent: AGENT, input: "list the files", stream: true }));
    expect(finalStatus(events)).toBe("completed");
    const steps = events.filter((e) => e.event_type === "step.start").map((e) => e["step"] as Record<string, unknown>);
    const call = steps.find((s) => s["type"] === "function_call");
    expect(call).toMatchObject({ name: "list_directory", arguments: { directory_path: "." } });
    const result = steps.find((s) => s["type"] === "function_result");
    expect(result?.["call_id"]).toBe(call?.["id"]);
    expect(JSON.stringify(result?.["result"])).toContain("notes.txt");
    expect(text(events)).toBe("Listed.");
  });

  it("resumes a dropped stream with get(id, { stream, last_event_id }): the events after it, once each, to the end", async () => {
    const firstPart = await collect(
      await ai.interactions.create({ agent: AGENT, input: "slow please", stream: true }),
      (e) => e.event_type === "step.delta" && (e["delta"] as { text: string }).text.includes("w3"),
    );
    const id = (firstPart[0]?.["interaction"] as { id: string }).id;
    const lastId = firstPart.at(-1)?.event_id;
    const rest = await collect(await ai.interactions.get(id, { stream: true, last_event_id: lastId }));
    const all = [...firstPart, ...rest];
    expect(new Set(all.map((e) => e.event_id)).size).toBe(all.length);
    expect(text(all)).toBe(SLOW_WORDS);
    expect(finalStatus(all)).toBe("completed");
    // Without last_event_id the whole stream replays from its first event.
    const replay = await collect(await ai.interactions.get(id, { stream: true }));
    expect(replay.map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
    await expect(ai.interactions.get(id, { stream: true, last_event_id: "no-such-event" })).rejects.toMatchObject({
      statusCode: 400,
    });
  });

  it("runs in the background and cancels: in_progress at once, cancelled after cancel, the stream ends cancelled", async () => {
    const started = await ai.interactions.create({ agent: AGENT, input: "slow again", background: true });
    expect(checkInteraction(started)).toEqual([]);
    expect(started.status).toBe("in_progress");
    const stream = await ai.interactions.get(started.id, { stream: true });
    const seen: Event[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        expect(checkEvent(event)).toEqual([]);
        seen.push(event as Event);
      }
    })();
    await expect.poll(() => seen.some((e) => e.event_type === "step.delta"), { timeout: 30_000 }).toBe(true);
    const cancelled = await ai.interactions.cancel(started.id);
    expect(checkInteraction(cancelled)).toEqual([]);
    expect(cancelled.status).toBe("cancelled");
    await reading;
    expect(finalStatus(seen)).toBe("cancelled");
    expect(text(seen).length).toBeLessThan(SLOW_WORDS.length);
    expect((await ai.interactions.get(started.id)).status).toBe("cancelled");
  });

  it("stops on a client function with requires_action and continues when the next request answers it", async () => {
    const tools = [
      {
        type: "function" as const,
        name: "get_weather",
        description: "Weather of a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ];
    const events = await collect(
      await ai.interactions.create({ agent: AGENT, input: "weather in Paris?", tools, stream: true }),
    );
    expect(finalStatus(events)).toBe("requires_action");
    const call = events.find(
      (e) => e.event_type === "step.start" && (e["step"] as { type: string }).type === "function_call",
    )?.["step"] as { id: string; name: string; arguments: unknown };
    expect(call).toMatchObject({ name: "get_weather", arguments: { city: "Paris" } });
    const id = (events[0]?.["interaction"] as { id: string }).id;
    const waiting = await ai.interactions.get(id);
    expect(waiting.status).toBe("requires_action");
    // An answer that misses the call is refused; the right one continues the turn.
    await expect(
      ai.interactions.create({
        agent: AGENT,
        previous_interaction_id: id,
        input: [{ type: "function_result", call_id: "other", result: "x" }],
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
    const next = await collect(
      await ai.interactions.create({
        agent: AGENT,
        previous_interaction_id: id,
        stream: true,
        input: [{ type: "function_result", call_id: call.id, name: "get_weather", result: { forecast: "sunny" } }],
      }),
    );
    expect(finalStatus(next)).toBe("completed");
    expect(text(next)).toBe("Done with the weather.");
  });

  it("reports a failed turn: an error event, status failed, errors on the resource", async () => {
    const events = await collect(await ai.interactions.create({ agent: AGENT, input: "broken model", stream: true }));
    expect(finalStatus(events)).toBe("failed");
    const error = events.find((e) => e.event_type === "error")?.["error"] as { message?: string } | undefined;
    expect(error?.message).toContain("the model is broken");
    const id = (events[0]?.["interaction"] as { id: string }).id;
    const resource = await ai.interactions.get(id);
    expect(checkInteraction(resource)).toEqual([]);
    expect(resource.errors?.[0]?.message).toContain("the model is broken");
  });

  it("refuses what it cannot serve with the API's error body: unknown agent, unknown interaction, bad key, model interactions", async () => {
    await expect(
      ai.interactions.create({ agent: "deep-research-pro-preview-12-2025", input: "hi" }),
    ).rejects.toMatchObject({ statusCode: 404 });
    await expect(ai.interactions.get("interaction-missing")).rejects.toMatchObject({ statusCode: 404 });
    const stranger = new GoogleGenAI({ apiKey: "wrong-key", httpOptions: { baseUrl } });
    await expect(stranger.interactions.create({ agent: AGENT, input: "hi" })).rejects.toMatchObject({
      statusCode: 401,
    });
    await expect(ai.interactions.create({ model: "gemini-3.7-flash", input: "hi" })).rejects.toMatchObject({
      statusCode: 400,
    });
    await expect(
      ai.interactions.create({ agent: AGENT, input: "hi", tools: [{ type: "google_search" }] }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });

  it("deletes an interaction: get answers 404 afterwards", async () => {
    const interaction = await ai.interactions.create({ agent: AGENT, input: "hello" });
    await ai.interactions.delete(interaction.id);
    await expect(ai.interactions.get(interaction.id)).rejects.toMatchObject({ statusCode: 404 });
  });
});
