// What a page may send an ACP agent through createAcpBridge (docs/acp.md, "From a browser"). Every
// method and field is `@agentclientprotocol/sdk` 2.4's (`methods.agent`, `dist/v1/schema/types.gen.d.ts`:
// InitializeRequest.clientCapabilities, AuthenticateRequest.methodId, NewSessionRequest { cwd,
// mcpServers }, LoadSessionRequest { sessionId, cwd, mcpServers }, PromptRequest / SetSessionModeRequest /
// CancelNotification .sessionId; NewSessionRequest/LoadSessionRequest.additionalDirectories); the error objects are JSON-RPC 2.0's (§5, §5.1 codes).
import type { AnyMessage, McpServer } from "@agentclientprotocol/sdk";
import type { SessionOwnership } from "../gateway/session-ownership.js";

/** What the operator lets every page of a bridge do; the page's own values for these are replaced or refused. */
export interface AcpBridgeRules {
  /** `session/new`'s and `session/load`'s `cwd`: the page's is replaced (a page cannot name a server path). */
  cwd: string;
  /** MCP servers every session gets; a page's own `mcpServers` are refused (a stdio one is a command on the server). */
  mcpServers: readonly McpServer[];
  /** `authenticate` methods a page may pick (the agent reads their keys from its environment). Default none. */
  authMethodIds: readonly string[];
  /** Client capabilities a page may advertise in `initialize`: serving the agent's `fs/*` or `terminal/*` itself. Default none. */
  clientCapabilities: { fs: boolean; terminal: boolean };
}

/** JSON-RPC 2.0 error codes (§5.1). */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
} as const;

/** What to do with one page message: send this (rewritten) message to the agent, answer the page, or drop it. */
export type PageVerdict =
  | { kind: "forward"; message: AnyMessage }
  | { kind: "answer"; message: AnyMessage; reason: string }
  | { kind: "drop"; reason: string };

type Id = string | number;
type Json = Record<string, unknown>;

/** The agent methods a page may call; the rest (`session/list` would show other pages' sessions, `_…` extensions, `logout` …) are refused. */
const PAGE_REQUESTS = new Set([
  "initialize",
  "authenticate",
  "session/new",
  "session/load",
  "session/prompt",
  "session/set_mode",
]);
const PAGE_NOTIFICATIONS = new Set(["session/cancel"]);

/**
 * The bridge's view of one page's ACP connection: checks each page message against the rules and
 * this connection's state, and watches the agent's messages to learn the sessions it opened and
 * the requests the page may answer. One per page connection.
 */
export class AcpPageRules {
  readonly #rules: AcpBridgeRules;
  readonly #ownership: SessionOwnership;
  readonly #token: string;
  #initialized = false;
  /** Sessions this connection opened or loaded: the only ones its prompts may name. */
  readonly #sessions = new Set<string>();
  /** The page's session/new and session/load requests, by id, waiting for the agent's answer. */
  readonly #opening = new Map<Id, string | undefined>();
  /** The agent's requests to the page (permission, fs, terminal) not answered yet: the only ids a page's response may carry. */
  readonly #agentRequests = new Set<Id>();

  constructor(rules: AcpBridgeRules, ownership: SessionOwnership, token: string) {
    this.#rules = rules;
    this.#ownership = ownership;
    this.#token = token;
  }

  /** Whether the page has sent an admitted `initialize` (the agent process starts then). */
  get initialized(): boolean {
    return this.#initialized;
  }

  /** Checks one text frame from the page. Never throws. */
  fromPage(frame: string): PageVerdict {
    let value: unknown;
    try {
      value = JSON.parse(frame);
    } catch {
      return answer(null, JsonRpcCode.ParseError, "the frame is not JSON; send one JSON-RPC message per text frame");
    }
    if (!isObject(value) || value["jsonrpc"] !== "2.0")
      return answer(null, JsonRpcCode.InvalidRequest, "not a JSON-RPC 2.0 message object (ACP sends no batches)");
    const id = value["id"];
    const method = value["method"];
    if (method === undefined) return this.#pageResponse(value, id);
    if (typeof method !== "string") return answer(null, JsonRpcCode.InvalidRequest, "method must be a string");
    if (id === undefined) return this.#pageNotification(value, method);
    if (!isId(id)) return answer(null, JsonRpcCode.InvalidRequest, "id must be a string or an integer");
    if (!PAGE_REQUESTS.has(method))
      return answer(id, JsonRpcCode.MethodNotFound, `the bridge does not pass ${method} from a page`);
    const params = value["params"];
    if (!isObject(params)) return answer(id, JsonRpcCode.InvalidParams, `${method} needs params`);
    if (method === "initialize") return this.#initialize(value, id, params);
    if (!this.#initialized) return answer(id, JsonRpcCode.InvalidRequest, "send initialize first");
    if (method === "authenticate") {
      const methodId = params["methodId"];
      if (typeof methodId === "string" && this.#rules.authMethodIds.includes(methodId)) return forward(value);
      return answer(
        id,
        JsonRpcCode.InvalidParams,
        `the bridge does not let a page authenticate with ${JSON.stringify(methodId)}`,
      );
    }
    if (method === "session/new" || method === "session/load") return this.#openSession(value, id, method, params);
    return this.#sessionCall(value, id, method, params);
  }

  /** Watches one agent message on its way to the page: learns opened sessions and the requests the page may answer. */
  fromAgent(message: AnyMessage): void {
    const record = message as Json;
    const id = record["id"];
    if (!isId(id)) return;
    if (typeof record["method"] === "string") {
      this.#agentRequests.add(id);
      return;
    }
    if (!this.#opening.has(id)) return;
    const loaded = this.#opening.get(id);
    this.#opening.delete(id);
    if (!("result" in record)) return; // the agent refused it
    const result = record["result"];
    const sessionId = loaded ?? (isObject(result) ? result["sessionId"] : undefined);
    if (typeof sessionId !== "string" || sessionId === "") return;
    this.#sessions.add(sessionId);
    this.#ownership.bind(sessionId, this.#token);
  }

  #initialize(message: Json, id: Id, params: Json): PageVerdict {
    if (this.#initialized)
      return answer(id, JsonRpcCode.InvalidRequest, "initialize was already sent on this connection");
    const asked = isObject(params["clientCapabilities"]) ? params["clientCapabilities"] : {};
    const fs = isObject(asked["fs"]) && (asked["fs"]["readTextFile"] === true || asked["fs"]["writeTextFile"] === true);
    const refused = [
      ...(fs && !this.#rules.clientCapabilities.fs ? ["fs"] : []),
      ...(asked["terminal"] === true && !this.#rules.clientCapabilities.terminal ? ["terminal"] : []),
    ];
    if (refused.length > 0)
      return answer(
        id,
        JsonRpcCode.InvalidParams,
        `the bridge does not let a page serve the agent's ${refused.join(" and ")} (clientCapabilities); initialize without it`,
      );
    this.#initialized = true;
    return forward(message);
  }

  #openSession(message: Json, id: Id, method: string, params: Json): PageVerdict {
    const mcpServers = params["mcpServers"];
    if (mcpServers !== undefined && !(Array.isArray(mcpServers) && mcpServers.length === 0))
      return answer(id, JsonRpcCode.InvalidParams, "the bridge chooses the agent's MCP servers; send mcpServers: []");
    let loaded: string | undefined;
    if (method === "session/load") {
      const sessionId = params["sessionId"];
      if (typeof sessionId !== "string" || this.#ownership.ownership(sessionId, this.#token) !== "mine")
        return answer(
          id,
          JsonRpcCode.InvalidParams,
          "a page may load only the sessions it created through this bridge",
        );
      loaded = sessionId;
    }
    const additional = params["additionalDirectories"];
    if (additional !== undefined && additional !== null && !(Array.isArray(additional) && additional.length === 0))
      return answer(
        id,
        JsonRpcCode.InvalidParams,
        "the bridge chooses the agent's directories; send no additionalDirectories",
      );
    this.#opening.set(id, loaded);
    // Rebuilt from the fields the schema has, so a field the bridge does not know never reaches the agent.
    return forward({
      ...message,
      params: {
        cwd: this.#rules.cwd,
        mcpServers: [...this.#rules.mcpServers],
        ...(loaded === undefined ? {} : { sessionId: loaded }),
        ...(params["_meta"] === undefined ? {} : { _meta: params["_meta"] }),
      },
    });
  }

  #sessionCall(message: Json, id: Id, method: string, params: Json): PageVerdict {
    const sessionId = params["sessionId"];
    if (typeof sessionId !== "string" || !this.#sessions.has(sessionId))
      return answer(id, JsonRpcCode.InvalidParams, `${method} names a session this connection did not open`);
    return forward(message);
  }

  #pageNotification(message: Json, method: string): PageVerdict {
    if (!PAGE_NOTIFICATIONS.has(method))
      return { kind: "drop", reason: `the bridge does not pass ${method} from a page` };
    const params = message["params"];
    const sessionId = isObject(params) ? params["sessionId"] : undefined;
    if (typeof sessionId !== "string" || !this.#sessions.has(sessionId))
      return { kind: "drop", reason: `${method} names a session this connection did not open` };
    return forward(message);
  }

  /** A page's answer to the agent (a permission, a file, a terminal): only to a request the agent sent and once. */
  #pageResponse(message: Json, id: unknown): PageVerdict {
    if (!isId(id) || !this.#agentRequests.has(id))
      return { kind: "drop", reason: "a response to no request the agent sent" };
    if (!("result" in message) && !isObject(message["error"]))
      return { kind: "drop", reason: "a response without result or error" };
    this.#agentRequests.delete(id);
    return forward(message);
  }
}

function forward(message: Json): PageVerdict {
  return { kind: "forward", message: message as AnyMessage };
}

function answer(id: Id | null, code: number, reason: string): PageVerdict {
  return {
    kind: "answer",
    reason,
    message: { jsonrpc: "2.0", id, error: { code, message: reason } } as AnyMessage,
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}
