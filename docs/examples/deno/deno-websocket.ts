/**
 * Deno's own WebSocket, shaped for `WebSocketTransport`'s `WebSocket` option. Deno's constructor
 * takes `{ protocols, headers }` as its second argument (browsers cannot send headers; Deno can),
 * so the transport's `x-goog-api-key` header reaches the harness without any gateway.
 */
export class DenoWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
    const list = protocols === undefined ? [] : Array.isArray(protocols) ? protocols : [protocols];
    // Deno's WebSocket accepts this options form; the DOM typings only know (url, protocols).
    super(url, { protocols: list, headers: options?.headers ?? {} } as unknown as string[]);
  }
}
