import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { GoogleGenAI } from "@google/genai";
import { InteractionsClient, type InteractionEvent } from "@antigravity-ts/sdk/hosted";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The SDK's thin Interactions client held equal to Google's @google/genai over the same recorded
// streams: interactions recorded on the emulator (text with thinking, a hosted tool, a client
// function waiting with requires_action, a failed turn), read back by both clients whole and from
// an event id; then the same recorded bytes served in other framings SSE allows (CRLF and CR line
// ends, one byte per chunk, comments and other fields, a `[DONE]` sentinel), read by both.

const KEY = "differential-key-0123456789";
const AGENT = "antigravity-preview-09-2026";

let root = "";
let emulator: InteractionsEmulator;
let ai: GoogleGenAI;
let thin: InteractionsClient;
const recorded: string[] = [];

async function all(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-diff-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  const script = parseScript({
    turns: [
      { match: "hello", calls: [{ thinking: "Short thought.", text: "Hello there, in a few chunks." }] },
      {
        match: "list",
        calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
      },
      { match: "weather", calls: [{ toolCalls: [{ name: "$client", args: { city: "Paris" } }] }, { text: "Done." }] },
      { match: "broken", calls: [{ text: "Partial ", error: { message: "the model is broken" } }] },
    ],
  });
  emulator = await startInteractionsEmulator({ apiKey: KEY, host: "127.0.0.1", port: 0, workspace, script });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  thin = new InteractionsClient({ apiKey: KEY, baseUrl: emulator.url });
  const tools = [
    {
      type: "function" as const,
      name: "get_weather",
      description: "Weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  ];
  for (const input of ["hello", "list the files", "weather?", "broken"]) {
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input,
      ...(input === "weather?" ? { tools } : {}),
    });
    recorded.push(interaction.id);
  }
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("InteractionsClient and @google/genai read the same events", () => {
  it("from the emulator: every recorded interaction, whole and resumed from each of three event ids", async () => {
    expect(recorded).toHaveLength(4);
    for (const id of recorded) {
      const google = await all(await ai.interactions.get(id, { stream: true }));
      const ours = await all(await thin.resume(id, undefined));
      expect(ours).toEqual(google);
      expect(google.length).toBeGreaterThan(3);
      const ids = (google as InteractionEvent[]).map((e) => e.event_id as string);
      for (const from of [ids[0], ids[Math.floor(ids.length / 2)], ids.at(-2)]) {
        const googleTail = await all(await ai.interactions.get(id, { stream: true, last_event_id: from }));
        expect(await all(await thin.resume(id, from))).toEqual(googleTail);
        expect(googleTail).toEqual(google.slice(ids.indexOf(from as string) + 1));
      }
    }
  });

  it("from the same bytes in the other framings SSE allows", async () => {
    const events = await all(await thin.resume(recorded[0] as string, undefined));
    const lf = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    const framings: Record<string, { body: string; chunk?: number }> = {
      lf: { body: lf },
      crlf: { body: lf.replaceAll("\n", "\r\n") },
      cr: { body: lf.replaceAll("\n", "\r") },
      "one byte per chunk": { body: lf, chunk: 1 },
      "comments, event and id fields, no space after the colon": {
        body: events
          .map(
            (e, i) =>
              `: keep-alive\nevent: ${(e as InteractionEvent).event_type}\nid: ${i}\ndata:${JSON.stringify(e)}\n\n`,
          )
          .join(""),
      },
      "[DONE] sentinel": { body: `${lf}data: [DONE]\n\n` },
    };
    let current = framings["lf"] as { body: string; chunk?: number };
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const bytes = Buffer.from(current.body);
      const size = current.chunk ?? bytes.length;
      let at = 0;
      const next = (): void => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + size), next);
        at += size;
      };
      next();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const google = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
      const ours = new InteractionsClient({ apiKey: KEY, baseUrl });
      for (const [name, framing] of Object.entries(framings)) {
        current = framing;
        const theirs = await all(await google.interactions.get("recorded", { stream: true }));
        const mine = await all(await ours.resume("recorded", undefined));
        expect(mine, name).toEqual(theirs);
        expect(mine, name).toEqual(events);
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
