// The least a localharness can do for `Agent.start()`, the floor of the start-to-ready rows: read
// the stdio handshake (protocol §3), listen with Node's HTTP server and `ws` on 127.0.0.1, answer
// it, accept the WebSocket with the key (§4) and answer the first frame with an
// `initializeConversationResponse` (§5). No sessions, no tools, no model: nothing a real harness
// could leave out. Spawned by bench/measure-sdk.mjs; not a harness to use.
const http = require("node:http");
const { randomBytes } = require("node:crypto");
const { WebSocketServer } = require("ws");

let input = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  input = Buffer.concat([input, chunk]);
  if (input.length < 4 || input.length < 4 + input.readUInt32LE(0)) return;
  process.stdin.removeAllListeners("data");
  process.stdin.on("end", () => process.exit(0));
  const apiKey = randomBytes(32).toString("base64url");
  const server = http.createServer();
  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on("upgrade", (request, socket, head) => {
    if (request.headers["x-goog-api-key"] !== apiKey) return socket.destroy();
    sockets.handleUpgrade(request, socket, head, (ws) => {
      ws.once("message", () =>
        ws.send(
          JSON.stringify({
            seqNum: "1",
            timestampMicros: "0",
            initializeConversationResponse: { cascadeId: "floor-0123456789abcdef0123456789abcdef" },
          }),
        ),
      );
    });
  });
  server.listen({ host: "127.0.0.1", port: 0 }, () => {
    const key = Buffer.from(apiKey);
    const body = Buffer.from([0x08, ...varint(server.address().port), 0x12, ...varint(key.length), ...key]);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(body.length);
    process.stdout.write(Buffer.concat([prefix, body]));
  });
});

/** A protobuf varint, by hand: loading the SDK's handshake encoder would add its modules to the floor this measures. */
function varint(value) {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}
