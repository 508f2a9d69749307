// The runtime's WebSocket for WebSocketTransport: `ws` on Node, the global WebSocket in browsers
// and Deno (isomorphic-ws picks by the "browser" field). Kept in a .js file with its own .d.ts so
// the type checker never loads @types/ws, whose Node globals must not leak into this package.
export { default as DefaultWebSocket } from "isomorphic-ws";
