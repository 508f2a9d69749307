// The Worker of test/workerd/run.test.ts: the core's one-call entry, run(), inside workerd against
// a listening reference harness (fetchUpgradeWebSocket: the key as a header). GET /?prompt=...
// answers the turn as JSON once run() is over: its events' kinds, the final text, and whether
// done() had resolved (the session closed) before the answer was written.
import { WebSocketTransport, allowAll, defineTool, fetchUpgradeWebSocket, run } from "@antigravity-ts/sdk";

interface Env {
  HARNESS_URL: string;
  HARNESS_API_KEY: string;
}

const workerInfo = defineTool({
  name: "worker_info",
  description: "Tells which runtime runs the client.",
  parameters: { type: "object", properties: {} },
  call: () => ({ runtime: navigator.userAgent }),
});

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const prompt = new URL(request.url).searchParams.get("prompt") ?? "Hello";
    const result = run(prompt, {
      transport: new WebSocketTransport({
        url: env.HARNESS_URL,
        apiKey: env.HARNESS_API_KEY,
        connect: fetchUpgradeWebSocket,
      }),
      policies: [allowAll()],
      tools: [workerInfo],
      timeoutMs: 30_000,
    });
    const kinds: string[] = [];
    try {
      for await (const event of result) kinds.push(event.type);
      const response = await result.final();
      let stopped = false;
      await Promise.race([result.done().then(() => (stopped = true)), Promise.resolve()]);
      return Response.json({ ok: true, kinds, text: response.text, stopped });
    } catch (error) {
      const e = error as { code?: string; message?: string };
      return Response.json({ ok: false, code: e.code, message: e.message });
    }
  },
};
