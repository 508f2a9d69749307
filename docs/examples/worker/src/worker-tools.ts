import { defineTool } from "@antigravity-ts/sdk";

/**
 * A client tool that runs inside the Worker: the model learns where it is running. Tools are
 * plain functions in whatever runtime holds the agent; here that is workerd.
 */
export const workerInfo = defineTool({
  name: "worker_info",
  description: "Tells which runtime and region the Worker handling this request runs in.",
  parameters: { type: "object", properties: {} },
  call: () => ({ runtime: navigator.userAgent, now: new Date().toISOString() }),
});
