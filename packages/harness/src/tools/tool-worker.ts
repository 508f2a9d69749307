import { TaskBoard } from "./tasks/task-board.js";
import { isMainThread, parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { ToolContext } from "./tool.js";
import {
  TOOL_WORKER_MARK,
  TOOL_WORKER_READY,
  WORKER_TOOLS,
  type ToolCallReply,
  type ToolCallRequest,
} from "./worker-tools.js";

// The entry of a tool worker thread; tool-pool.ts starts it by URL, and nothing imports it (so the
// build keeps it a file of its own: rollup.config.mjs emits `dist/tool-worker.js`). It runs the
// built-ins of WORKER_TOOLS with the very code the main thread would run: the tools, their path
// checks (workspace-paths.ts) and file access are imported, not copied.

/** Runs one call the way the main thread would, minus what only the main thread has. */
async function runCall(request: ToolCallRequest): Promise<ToolCallReply> {
  const entry = WORKER_TOOLS.get(request.tool);
  if (entry === undefined)
    return { ok: false, error: { name: "Error", message: `${request.tool} does not run in a tool worker` } };
  // A call is stopped by terminating its worker, so this signal never aborts; these tools ask no questions.
  const context: ToolContext = {
    workspace: request.workspace,
    env: {},
    runCommandTimeoutMs: 0,
    sandbox: undefined,
    signal: new AbortController().signal,
    tasks: new TaskBoard(),
    daemonCommands: false,
    progress: () => {},
    askUser: () => Promise.reject(new Error(`${request.tool} cannot ask questions from a tool worker`)),
  };
  try {
    return { ok: true, outcome: await entry.tool.run(request.args, context) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { ok: false, error: { name, message } };
  }
}

function serve(port: MessagePort): void {
  port.on("message", (request: ToolCallRequest) => {
    void runCall(request).then((reply) => {
      try {
        port.postMessage(reply);
      } catch (error) {
        port.postMessage({
          ok: false,
          error: {
            name: "Error",
            message: `${request.tool} produced a result that cannot leave the tool worker: ${(error as Error).message}`,
          },
        });
      }
    });
  });
  port.postMessage(TOOL_WORKER_READY);
}

if (!isMainThread && parentPort !== null && (workerData as Record<string, unknown> | null)?.[TOOL_WORKER_MARK] === true)
  serve(parentPort);
