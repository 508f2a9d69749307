import type { WebSocketConstructor } from "./websocket-like.js";

/** The runtime's WebSocket (`ws` on Node, the global one elsewhere), via isomorphic-ws. */
export declare const DefaultWebSocket: WebSocketConstructor;
