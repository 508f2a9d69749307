// A minimal localharness stand-in for transport tests (protocol §2.3–§4): reads the u32-LE
// InputConfig from stdin, starts a WebSocket server on loopback that checks x-goog-api-key,
// answers a u32-LE OutputConfig on stdout, and exits when stdin closes.
//
// Frames it understands (text):
//   "inputConfig"     -> replies with the received InputConfig bytes, base64
//   "env:NAME"        -> replies with process.env.NAME (or "<unset>")
//   "argv"            -> replies with {"execArgv": node's flags, "args": the harness's arguments}
//   "stream"          -> sends numbered frames forever, as fast as the socket drains
//   "close:CODE"      -> closes the WebSocket with CODE
//   "exit:CODE"       -> exits the process with CODE
//   "orphan:CODE"     -> hands the TCP connection to a grandchild (which prints "keeper pid N" and
//                        lives until the connection closes, 20 s at most), then exits with CODE
//   anything else    -> echoed back
// Env: FAKE_HARNESS_STUBBORN=1 ignores stdin EOF and SIGTERM (only SIGKILL stops it).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { WebSocketServer } from "ws";

const stubborn = process.env.FAKE_HARNESS_STUBBORN === "1";
let input = Buffer.alloc(0);
let started = false;

process.stdin.on("data", (chunk) => {
  input = Buffer.concat([input, chunk]);
  if (started || input.length < 4) return;
  const length = input.readUInt32LE(0);
  if (input.length < 4 + length) return;
  started = true;
  start(input.subarray(4, 4 + length));
});
process.stdin.on("end", () => {
  process.stderr.write("Stdin closed, cleaning up...\n");
  if (!stubborn) process.exit(0);
});
if (stubborn) process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));

function start(inputConfig) {
  const apiKey = randomBytes(16).toString("hex");
  const server = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    maxPayload: 0,
    verifyClient: (info, done) => {
      if (info.req.headers["x-goog-api-key"] === apiKey) done(true);
      else done(false, 401, "invalid api key");
    },
  });
  server.on("listening", () => {
    const { port } = server.address();
    process.stderr.write(`fake harness: listening on ${port}\n`);
    const reply = Buffer.concat([varintField(1, port), stringField(2, apiKey)]);
    const header = Buffer.alloc(4);
    header.writeUInt32LE(reply.length, 0);
    process.stdout.write(Buffer.concat([header, reply]));
  });
  server.on("connection", (socket) => {
    socket.on("message", (data) => {
      const text = data.toString("utf8");
      if (text === "inputConfig") socket.send(inputConfig.toString("base64"));
      else if (text.startsWith("env:")) socket.send(process.env[text.slice(4)] ?? "<unset>");
      else if (text === "argv")
        socket.send(JSON.stringify({ execArgv: process.execArgv, args: process.argv.slice(2) }));
      else if (text === "stream") stream(socket);
      else if (text.startsWith("close:")) socket.close(Number(text.slice(6)), "fake harness closed");
      else if (text.startsWith("exit:")) process.exit(Number(text.slice(5)));
      else if (text.startsWith("orphan:")) orphan(socket, Number(text.slice(7)));
      else socket.send(text);
    });
  });
}

/** Exits while a grandchild keeps the connection open: the socket outlives the harness. */
function orphan(socket, code) {
  const keeper = spawn(process.execPath, ["-e", KEEPER], { stdio: ["ignore", "ignore", "ignore", socket._socket] });
  process.stderr.write(`keeper pid ${keeper.pid}\n`);
  process.exit(code);
}

const KEEPER = `
const socket = new (require("node:net").Socket)({ fd: 3, readable: true });
socket.on("close", () => process.exit(0)).on("error", () => process.exit(0)).resume();
setTimeout(() => process.exit(0), 20000);
`;

function stream(socket) {
  let n = 0;
  const pump = () => {
    while (socket.readyState === socket.OPEN && socket.bufferedAmount < 1 << 20)
      socket.send(JSON.stringify({ seqNum: String(n++) }));
    if (socket.readyState === socket.OPEN) setTimeout(pump, 1);
  };
  pump();
}

function varintField(field, value) {
  const bytes = [(field << 3) | 0];
  let v = value >>> 0;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function stringField(field, text) {
  const data = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from([(field << 3) | 2, data.length]), data]);
}
