// Bench harness: a loopback WebSocket server that speaks just enough of the localharness
// protocol (§4–§7) to measure the client. Runs in its own process so its CPU does not count
// against the client. Prints `{"port","apiKey"}` on stdout, then one JSON line per finished
// measurement. Scenarios are chosen by the prompt text:
//   "stream:N" -> N stepUpdate frames (DONE text steps), then FULLY_IDLE
//   "tools:K"  -> K toolCall frames, one at a time; the time until each toolResponse is recorded
//   "steps:N"  -> like stream:N, but frames are made as they are sent, in batches that wait for the
//                socket to drain (a million steps never sit in memory at once)
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { WebSocketServer } from "ws";

const apiKey = randomBytes(16).toString("hex");
const TRAJECTORY = "bench-trajectory";
const server = new WebSocketServer({
  host: "127.0.0.1",
  port: 0,
  maxPayload: 0,
  perMessageDeflate: false,
  verifyClient: (info, done) => done(info.req.headers["x-goog-api-key"] === apiKey, 401),
});

let seq = 0;
let callCounter = 0;
const frame = (event) => JSON.stringify({ seqNum: String(seq++), ...event });
const running = () => frame({ trajectoryStateUpdate: { trajectoryId: TRAJECTORY, state: "STATE_RUNNING" } });
const idle = () => frame({ trajectoryStateUpdate: { trajectoryId: TRAJECTORY, state: "STATE_FULLY_IDLE" } });
const TEXT = "The quick brown fox jumps over the lazy dog; a typical streamed sentence of an answer. ";

/** Pre-encoded step frames, built once per size so encoding does not count. */
const stepCache = new Map();
function stepFrames(n) {
  let frames = stepCache.get(n);
  if (frames === undefined) {
    frames = [];
    for (let i = 0; i < n; i++) {
      const text = `${i}: ${TEXT}`;
      frames.push(
        frame({
          stepUpdate: {
            cascadeId: TRAJECTORY,
            trajectoryId: TRAJECTORY,
            stepIndex: i + 1,
            state: "STATE_DONE",
            source: "SOURCE_MODEL",
            target: "TARGET_USER",
            text,
            textDelta: text,
          },
        }),
      );
    }
    stepCache.set(n, frames);
  }
  return frames;
}

server.on("connection", (socket) => {
  let initialized = false;
  let pendingTool;
  socket.on("message", (data) => {
    const text = data.toString("utf8");
    if (!initialized && text.includes('"config"')) {
      initialized = true;
      socket.send(frame({ initializeConversationResponse: { cascadeId: TRAJECTORY } }));
      return;
    }
    if (pendingTool !== undefined && text.includes('"toolResponse"')) {
      pendingTool();
      return;
    }
    const stream = /stream:(\d+)/.exec(text);
    if (stream) {
      socket.send(running());
      for (const f of stepFrames(Number(stream[1]))) socket.send(f);
      socket.send(idle());
      return;
    }
    const steps = /steps:(\d+)/.exec(text);
    if (steps) {
      void streamGenerated(socket, Number(steps[1]));
      return;
    }
    const tools = /tools:(\d+)/.exec(text);
    if (tools) void runTools(socket, Number(tools[1]), (resolve) => (pendingTool = resolve));
  });
});

/** N step frames made on the fly, `BATCH` at a time, each batch after the socket drained. */
async function streamGenerated(socket, n) {
  const BATCH = 1_000;
  socket.send(running());
  for (let i = 0; i < n; i++) {
    const text = `${i}: ${TEXT}`;
    socket.send(
      frame({
        stepUpdate: {
          cascadeId: TRAJECTORY,
          trajectoryId: TRAJECTORY,
          stepIndex: i + 1,
          state: "STATE_DONE",
          source: "SOURCE_MODEL",
          target: "TARGET_USER",
          text,
          textDelta: text,
        },
      }),
    );
    if (i % BATCH === BATCH - 1)
      while (socket.bufferedAmount > 1 << 20) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  socket.send(idle());
}

async function runTools(socket, count, setPending) {
  socket.send(running());
  socket.send(
    frame({
      stepUpdate: {
        cascadeId: TRAJECTORY,
        trajectoryId: TRAJECTORY,
        stepIndex: 1,
        state: "STATE_DONE",
        source: "SOURCE_MODEL",
        target: "TARGET_USER",
        text: "calling tools",
        textDelta: "calling tools",
      },
    }),
  );
  const rtts = [];
  for (let i = 0; i < count; i++) {
    const answered = new Promise((resolve) => setPending(resolve));
    const start = performance.now();
    // Call ids are unique per session, as a harness makes them.
    socket.send(
      frame({ toolCall: { id: `call-${callCounter++}`, name: "bench_echo", argumentsJson: JSON.stringify({ i }) } }),
    );
    await answered;
    rtts.push(performance.now() - start);
  }
  setPending(undefined);
  socket.send(idle());
  process.stdout.write(`${JSON.stringify({ scenario: "tools", rtts })}\n`);
}

server.on("listening", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port, apiKey })}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
