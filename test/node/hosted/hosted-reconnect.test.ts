import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, defineTool } from "@antigravity-ts/sdk";
import { hostedAgent } from "@antigravity-ts/sdk/hosted";
import { seededRandom } from "@antigravity-ts/sdk/testing";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Reconnect without loss (issue 28 item 3): a proxy between hostedAgent and the emulator cuts
// every event stream after its first complete event, at a seeded random byte inside the next one,
// so each stream delivers one new event and half of another. The connection resumes each time with
// last_event_id; the turn (text, a client tool, more text, across two interactions) must come out
// whole: every word once, in order, and the client tool run once. Every 10th resume replays the
// stream from its start instead, so events the connection already had come again.

const KEY = "reconnect-test-key-0123456789";
const FIRST = Array.from({ length: 60 }, (_, i) => `a${i}`).join(" ");
const SECOND = Array.from({ length: 60 }, (_, i) => `b${i}`).join(" ");

let root = "";
let emulator: InteractionsEmulator;
let proxy: Server;
let proxyUrl = "";
let drops = 0;
let resumes = 0;
let replays = 0;
const random = seededRandom(28);

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "antigravity-hosted-reconnect-"));
  const workspace = path.join(root, "ws");
  await mkdir(workspace);
  const script = parseScript({
    turns: [
      {
        match: "long",
        calls: [
          { text: FIRST, chunkWords: 1, chunkDelayMs: 3, toolCalls: [{ name: "$client", args: { n: 1 } }] },
          { text: SECOND, chunkWords: 1, chunkDelayMs: 3 },
        ],
      },
    ],
  });
  emulator = await startInteractionsEmulator({ apiKey: KEY, host: "127.0.0.1", port: 0, workspace, script });
  const upstream = new URL(emulator.url);
  proxy = createServer((req, res) => {
    // Every 10th resume asks for the stream from its start (as a server that lost its place would
    // send it): the connection must drop the events it already had.
    let target = req.url ?? "/";
    if (target.includes("last_event_id=") && ++resumes % 10 === 0) {
      target = target.replace(/&?last_event_id=[^&]*/, "");
      replays++;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: target, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        if (!String(answer.headers["content-type"]).startsWith("text/event-stream")) {
          answer.pipe(res);
          return;
        }
        // Forward the first complete event, then part of the next, then cut the connection.
        let buffered = "";
        let cutAt: number | undefined;
        let cutDone = false;
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          if (cutDone) return; // chunks already read after the cut
          buffered += chunk;
          const first = buffered.indexOf("\n\n");
          if (first < 0) return;
          const second = buffered.indexOf("\n\n", first + 2);
          if (second < 0 && cutAt === undefined) return; // wait for the whole next event to choose a byte inside it
          cutAt ??= first + 2 + Math.floor(random() * (second - first - 2));
          drops++;
          cutDone = true;
          answer.destroy();
          res.write(buffered.slice(0, cutAt), () => res.destroy());
        });
        answer.on("end", () => {
          // The stream ended before a second event: pass on what there is.
          if (cutAt === undefined) res.end(buffered);
        });
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("hostedAgent through a proxy that drops every event stream", () => {
  it("resumes by last_event_id over 100+ drops: no event lost or shown twice, the client tool run once", async () => {
    let runs = 0;
    const tool = defineTool({
      name: "count",
      description: "Counts its calls",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const,
      call: () => ({ runs: ++runs }),
    });
    await using agent = await Agent.builder()
      .connection(hostedAgent({ apiKey: KEY, baseUrl: proxyUrl, reconnectDelayMs: () => 0 }))
      .tool(tool)
      .allowAll()
      .build()
      .start();
    const stream = agent.chat("a long turn");
    let text = "";
    for await (const chunk of stream) if (chunk.type === "text") text += chunk.text;
    const outcome = await stream.outcome();
    expect(outcome.error).toBeUndefined();
    expect(runs).toBe(1);
    expect(text).toBe(`${FIRST}${SECOND}`);
    const steps = await agent.conversation().history();
    const texts = steps.filter((s) => s.content !== "" && s.type === "TEXT_RESPONSE").map((s) => s.content);
    expect(texts).toEqual(["a long turn", FIRST, SECOND]); // the prompt's step, then the agent's text once each
    expect(drops).toBeGreaterThanOrEqual(100);
    expect(replays).toBeGreaterThan(0);
  }, 120_000);
});
