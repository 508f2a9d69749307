// Throughput, client-tool round trips and one-step turns: the SDK (transport → codec → connection → conversation
// → chunk consumer) beside a bare `ws` client that only JSON.parses the same frames. Runs of the
// two alternate, so a busy machine slows both alike.
import { performance } from "node:perf_hooks";
import { WebSocket } from "ws";
import { Agent, WebSocketTransport, defineTool } from "@antigravity-ts/node";
import { median, percentile } from "./report.mjs";

/** Turns run before measuring, so the JIT has compiled the hot paths. */
const WARM_UP_RUNS = 2;
/** Warm-up turns of the throughput rows: after two, V8 was still optimising the SDK's path (docs/bench.md, Throughput). */
const THROUGHPUT_WARM_UP_RUNS = 4;
/** Tool calls per measured turn; turns alternate between the SDK and the baseline. */
const TOOL_CALLS_PER_TURN = 100;
/**
 * Tool calls per warm-up turn ({@link WARM_UP_RUNS} of them per client): the SDK's call path
 * reaches V8's optimizing tier only after about 2,000 calls (a lone SDK client's median over
 * its first 1,000-call turns: 201, 170, 74, 63 µs), so a short warm-up measures the JIT rather
 * than the SDK. The tail settles later: after 2 × 1,000 warm-up calls the p99 of 10,000 measured
 * calls was 0.36–0.42 ms (bare 0.19–0.20), after 2 × 5,000 it is 0.26–0.29 ms (bare 0.14–0.15).
 * The bare client gets the same warm-up.
 */
const WARM_UP_TOOL_CALLS = 5_000;

/** A client tool that answers at once, so the round trip measures the SDK, not the tool. */
const benchEcho = defineTool({
  name: "bench_echo",
  description: "Returns its arguments.",
  parameters: { type: "object", properties: { i: { type: "integer" } } },
  call: (args) => args,
});

/** The SDK side: a started agent over `WebSocketTransport`. */
async function sdkClient(server) {
  const agent = await Agent.builder()
    .transport(new WebSocketTransport({ url: server.url, apiKey: server.apiKey }))
    .tool(benchEcho)
    .allowAll()
    .build()
    .start({ timeoutMs: 30_000 });
  const conversation = agent.conversation();
  return {
    /** One `stream:N` turn consumed as `conversation.chat()` chunks; returns the text chunks seen. */
    async stream(steps) {
      let chunks = 0;
      for await (const chunk of conversation.chat(`stream:${steps}`)) if (chunk.type === "text") chunks++;
      return chunks;
    },
    async tools(count) {
      await conversation.chatToCompletion(`tools:${count}`);
    },
    close: () => agent.stop(),
  };
}

/** The baseline: a bare `ws` client, JSON.parse per frame, answers tool calls directly. */
async function bareClient(server) {
  const socket = new WebSocket(server.url, {
    headers: { "x-goog-api-key": server.apiKey },
    maxPayload: 0,
    perMessageDeflate: false,
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const initialized = new Promise((resolve) => socket.once("message", resolve));
  socket.send(JSON.stringify({ config: {} }));
  await initialized;
  const turn = (prompt, onEvent) =>
    new Promise((resolve) => {
      const onMessage = (data) => {
        const event = JSON.parse(data.toString());
        if (event.trajectoryStateUpdate?.state === "STATE_FULLY_IDLE") {
          socket.off("message", onMessage);
          resolve();
        } else onEvent(event);
      };
      socket.on("message", onMessage);
      socket.send(JSON.stringify({ userInput: { parts: [{ text: prompt }] } }));
    });
  return {
    async stream(steps) {
      let frames = 0;
      await turn(`stream:${steps}`, (event) => {
        if (event.stepUpdate !== undefined) frames++;
      });
      return frames;
    },
    async tools(count) {
      await turn(`tools:${count}`, (event) => {
        if (event.toolCall !== undefined)
          socket.send(
            JSON.stringify({ toolResponse: { id: event.toolCall.id, responseJson: event.toolCall.argumentsJson } }),
          );
      });
    },
    close: async () => socket.close(),
  };
}

/**
 * Opens both clients and runs rounds `from` … `to - 1`, the baseline then the SDK in each, so a
 * busy machine slows both alike; `measure(client, name, round)` returns a round's samples, kept
 * for rounds ≥ 0 (the negative ones warm up). Closes both clients.
 */
async function alternating(server, from, to, measure) {
  const clients = { sdk: await sdkClient(server), baseline: await bareClient(server) };
  const samples = { sdk: [], baseline: [] };
  try {
    for (let round = from; round < to; round++) {
      for (const name of ["baseline", "sdk"]) {
        const values = await measure(clients[name], name, round);
        if (round >= 0) samples[name].push(...values);
      }
    }
  } finally {
    await Promise.all(Object.values(clients).map((client) => client.close()));
  }
  return samples;
}

const latencies = (values) => ({ medianMs: median(values), p99Ms: percentile(values, 0.99), count: values.length });

/** Steps per second of both clients (median of `runs`, after warm-up), runs alternating. */
export async function measureThroughput(server, { steps, runs }) {
  const rates = await alternating(server, -THROUGHPUT_WARM_UP_RUNS, runs, async (client, name) => {
    const start = performance.now();
    const seen = await client.stream(steps);
    const seconds = (performance.now() - start) / 1000;
    if (seen !== steps) throw new Error(`${name} delivered ${seen} of ${steps} steps`);
    return [steps / seconds];
  });
  return {
    sdk: { stepsPerSecond: median(rates.sdk), runs: rates.sdk },
    baseline: { stepsPerSecond: median(rates.baseline), runs: rates.baseline },
  };
}

/** Client-tool round trips (timed by the bench server) of both clients, turns alternating. */
export async function measureToolRoundTrips(server, { toolCalls }) {
  const turns = Math.max(1, Math.round(toolCalls / TOOL_CALLS_PER_TURN));
  const rtts = await alternating(server, -WARM_UP_RUNS, turns, async (client, _name, turn) => {
    await client.tools(turn < 0 ? WARM_UP_TOOL_CALLS : TOOL_CALLS_PER_TURN);
    return (await server.nextReport()).rtts;
  });
  return { sdk: latencies(rtts.sdk), baseline: latencies(rtts.baseline) };
}

/**
 * One-step turns (`stream:1`: RUNNING, one text step, FULLY_IDLE), each timed from the prompt to
 * the end of its chunk stream by the client: what a turn costs beyond the frames it carries.
 * Turns alternate between the clients, after as many warm-up turns each.
 */
export async function measureShortTurns(server, { shortTurns }) {
  const times = await alternating(server, -shortTurns, shortTurns, async (client, name) => {
    const start = performance.now();
    if ((await client.stream(1)) !== 1) throw new Error(`${name} did not see the turn's one step`);
    return [performance.now() - start];
  });
  return { sdk: latencies(times.sdk), baseline: latencies(times.baseline) };
}
