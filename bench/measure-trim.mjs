// History trimming: a conversation that keeps at most 1,000 steps (`maxHistorySize`) receives
// turns of 10,000 to 1,000,000 steps from bench/bench-server.mjs (`steps:N`, frames made as they
// are sent). Once the history is full every new step drops the oldest one, so the cost per step
// must not grow with the number of steps: the ratio to the 10,000-step turn should stay near 1.
import { performance } from "node:perf_hooks";
import { Agent, WebSocketTransport } from "@antigravity-ts/node";

/** Steps the history keeps; every step past it is trimmed. */
export const TRIM_HISTORY_SIZE = 1_000;

/** Per turn size: the time per step of a `conversation.chat("steps:N")` turn read to its end, in µs. */
export async function measureTrimming(server, { trimSteps }) {
  const agent = await Agent.builder()
    .transport(new WebSocketTransport({ url: server.url, apiKey: server.apiKey }))
    .allowAll()
    .maxHistorySize(TRIM_HISTORY_SIZE)
    .build()
    .start({ timeoutMs: 30_000 });
  try {
    const conversation = agent.conversation();
    await readTurn(conversation, 5_000); // warm-up: the JIT and a full history before measuring
    const results = [];
    for (const steps of trimSteps) {
      const started = performance.now();
      await readTurn(conversation, steps);
      const elapsedMs = performance.now() - started;
      const retained = (await conversation.history()).length;
      if (retained !== TRIM_HISTORY_SIZE)
        throw new Error(`history holds ${retained} steps after ${steps}, expected ${TRIM_HISTORY_SIZE}`);
      results.push({ steps, microsPerStep: (elapsedMs * 1000) / steps });
    }
    return { historySize: TRIM_HISTORY_SIZE, results };
  } finally {
    await agent.stop();
  }
}

async function readTurn(conversation, steps) {
  let chunks = 0;
  for await (const chunk of conversation.chat(`steps:${steps}`)) if (chunk.type === "text") chunks++;
  if (chunks !== steps) throw new Error(`read ${chunks} text chunks of a ${steps}-step turn`);
}
