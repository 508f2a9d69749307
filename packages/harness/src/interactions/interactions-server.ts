/**
 * An emulator of the Gemini Interactions API (the hosted Antigravity agent's wire, issue 28) over
 * the reference harness: the same agent loop, scripted model and contained tools as the
 * localharness wire, reached through the SDK's own `Agent` over an in-memory harness.
 *
 * Every route, field and event comes from `@google/genai` 3.x: the routes and methods from its
 * compiled client (`POST /{api_version}/interactions`, `GET /{api_version}/interactions/{id}` with
 * the query `stream`, `last_event_id`, `include_input`, `POST …/{id}/cancel`, `DELETE …/{id}`;
 * key in `x-goog-api-key`; SSE read as `data:` lines, each a JSON event), the bodies from its
 * `.d.ts` (`CreateAgentInteraction`, `Interaction`, `InteractionSSEEvent`, `Step`, `Usage`,
 * `ErrorT`). Where the published types are silent the emulator chooses, and docs/hosted.md says so:
 * hosted (built-in) tools appear as `function_call` / `function_result` steps the server runs
 * itself; a call of a declared client function ends the interaction with `requires_action`,
 * answered by the next `create` whose `previous_interaction_id` names it and whose `input` holds
 * a `function_result` step per call.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Agent,
  BuiltinTool,
  ErrorCode,
  SdkError,
  defineTool,
  type ChatEvent,
  type ChatStream,
  type StartedAgent,
  type Tool,
  type ToolContext,
  type UsageMetadata,
} from "@antigravity-ts/sdk";
import type { Logger } from "../log.js";
import type { ScriptFile } from "../providers/script-format.js";
import { createInMemoryHarness, type InMemoryHarness } from "../server/in-memory-harness.js";

/** Statuses of `InteractionStatus_2` / `InteractionStatusUpdateStatus` (genai.d.ts) the emulator reaches. */
export type EmulatedStatus =
  | "in_progress"
  | "requires_action"
  | "completed"
  | "failed"
  | "cancelled"
  | "budget_exceeded";

/** How a turn ended (`ChatStream.outcome()`). */
type TurnSummary = Awaited<ReturnType<ChatStream["outcome"]>>;

/** A JSON object as the wire carries it. */
type Json = Record<string, unknown>;

/** Options of {@link startInteractionsEmulator}. */
export interface InteractionsEmulatorOptions {
  /** Key clients send as `x-goog-api-key`. */
  apiKey: string;
  host: string;
  port: number;
  /** Workspace the hosted agent's file and command tools act in (the "sandbox"). */
  workspace: string;
  script?: ScriptFile | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  toolEnv?: Readonly<Record<string, string>> | undefined;
  log?: Logger | undefined;
}

/** A running emulator. */
export interface InteractionsEmulator {
  /** `http://HOST:PORT/`: the `baseUrl` of `@google/genai` (`httpOptions.baseUrl`). */
  readonly url: string;
  readonly port: number;
  /** Ends every running interaction and stops listening. */
  close(): Promise<void>;
}

/** One SSE event before its `event_id` is assigned. */
type EventBody = Json & { event_type: string };

/** One conversation: an agent session and the interaction its turn currently writes to. */
interface Chain {
  agent: StartedAgent;
  current: InteractionRecord;
  /** Calls of client functions waiting for a `function_result`, by call id. */
  pending: Map<string, { name: string; resolve: (value: unknown) => void; reject: (error: Error) => void }>;
  stream?: ChatStream | undefined;
  running: boolean;
  /** Names of the declared client functions. */
  functions: Set<string>;
  environmentId?: string | undefined;
}

interface InteractionRecord {
  id: string;
  agent: string;
  status: EmulatedStatus;
  created: string;
  updated: string;
  background: boolean;
  previousInteractionId?: string | undefined;
  environmentId?: string | undefined;
  agentConfig?: Json | undefined;
  input: unknown;
  steps: Json[];
  usage?: Json | undefined;
  errors?: Json[] | undefined;
  events: (EventBody & { event_id: string })[];
  listeners: Set<() => void>;
  /** Index in `steps` of the step still open (started, not stopped). */
  open?: { index: number; kind: "thought" | "model_output"; stepIndex: number } | undefined;
  chain: Chain;
  /** Settles when the interaction left `in_progress`. */
  settled: Promise<void>;
  settle: () => void;
  deleted: boolean;
  /** `cancel` was asked while the turn ran: it ends "cancelled" whatever its outcome. */
  cancelRequested?: boolean;
}

/** An error answered with a Google API error body `{ error: { code, message, status } }`. */
class HttpError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The hosted agent's own tools in the emulator: every built-in of the reference harness but
 * `ask_question` (the API has no step that asks the user). Named, not the SDK's default set, which
 * follows upstream's local defaults (0.1.19 leaves `list_directory` out).
 */
const HOSTED_TOOLS = Object.values(BuiltinTool).filter((tool) => tool !== BuiltinTool.AskQuestion);

const ROUTE = /^\/([^/]+)\/interactions(?:\/([^/]+?))?(\/cancel)?\/?$/;

/** Starts the emulator; resolves once it listens. */
export async function startInteractionsEmulator(options: InteractionsEmulatorOptions): Promise<InteractionsEmulator> {
  const harness: InMemoryHarness = createInMemoryHarness({
    workspace: options.workspace,
    script: options.script,
    env: options.env,
    toolEnv: options.toolEnv,
    log: options.log,
  });
  const interactions = new Map<string, InteractionRecord>();
  const chains = new Set<Chain>();
  const sockets = new Set<import("node:net").Socket>();

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const http =
        error instanceof HttpError ? error : new HttpError(500, "INTERNAL", (error as Error)?.message ?? String(error));
      if (!(error instanceof HttpError)) options.log?.error(`interactions: ${http.message}`);
      if (res.headersSent) {
        res.end();
        return;
      }
      sendJson(res, http.httpStatus, { error: { code: http.httpStatus, message: http.message, status: http.status } });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator");
    const match = ROUTE.exec(url.pathname);
    if (match === null) throw new HttpError(404, "NOT_FOUND", `no route ${req.method} ${url.pathname}`);
    if (req.headers["x-goog-api-key"] !== options.apiKey)
      throw new HttpError(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key in x-goog-api-key.");
    const id = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
    const cancel = match[3] !== undefined;
    if (id === undefined) {
      if (req.method !== "POST") throw new HttpError(405, "METHOD_NOT_ALLOWED", `${req.method} /interactions`);
      return create(parseBody(await readBody(req)), res);
    }
    const record = interactions.get(id);
    if (record === undefined || record.deleted)
      throw new HttpError(404, "NOT_FOUND", `interaction ${JSON.stringify(id)} not found`);
    if (cancel) {
      if (req.method !== "POST") throw new HttpError(405, "METHOD_NOT_ALLOWED", `${req.method} cancel`);
      await cancelInteraction(record);
      return sendJson(res, 200, resource(record, false));
    }
    if (req.method === "DELETE") {
      record.deleted = true;
      if (record.status === "in_progress" || record.status === "requires_action") await cancelInteraction(record);
      interactions.delete(id);
      return sendJson(res, 200, {}); // interactions.Empty
    }
    if (req.method !== "GET") throw new HttpError(405, "METHOD_NOT_ALLOWED", `${req.method} /interactions/{id}`);
    const includeInput = url.searchParams.get("include_input") === "true";
    if (url.searchParams.get("stream") !== "true") return sendJson(res, 200, resource(record, includeInput));
    const last = url.searchParams.get("last_event_id");
    let from = 0;
    if (last !== null && last !== "") {
      const at = record.events.findIndex((event) => event.event_id === last);
      if (at < 0)
        throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          `last_event_id ${JSON.stringify(last)} is not an event of interaction ${record.id}`,
        );
      from = at + 1;
    }
    return streamEvents(record, from, req, res);
  }

  async function create(body: Json, res: ServerResponse): Promise<void> {
    const agentName = body["agent"];
    if (typeof agentName !== "string" || agentName === "") {
      throw new HttpError(
        400,
        "INVALID_ARGUMENT",
        body["model"] === undefined
          ? "agent is required"
          : "the emulator serves agent interactions only (CreateAgentInteraction), not model interactions",
      );
    }
    if (!agentName.startsWith("antigravity"))
      throw new HttpError(
        404,
        "NOT_FOUND",
        `agent ${JSON.stringify(agentName)} is not served by this emulator (antigravity-preview-09-2026 is)`,
      );
    const agentConfig = body["agent_config"] as Json | undefined;
    if (agentConfig !== undefined && agentConfig["type"] !== "antigravity")
      throw new HttpError(400, "INVALID_ARGUMENT", `agent_config.type must be "antigravity" (AntigravityAgentConfig)`);
    if (typeof body["continuation_token"] === "string")
      throw new HttpError(400, "INVALID_ARGUMENT", "continuation_token: the emulator never issues one");
    const background = body["background"] === true;
    const stream = body["stream"] === true;
    const previousId = body["previous_interaction_id"];
    const input = readInput(body["input"]);
    let chain: Chain;
    const previous = typeof previousId === "string" ? interactions.get(previousId) : undefined;
    if (typeof previousId === "string" && (previous === undefined || previous.deleted))
      throw new HttpError(404, "NOT_FOUND", `previous_interaction_id ${JSON.stringify(previousId)} not found`);
    if (previous !== undefined) {
      chain = previous.chain;
      if (chain.current !== previous)
        throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          `interaction ${previous.id} was already continued by ${chain.current.id}`,
        );
      if (previous.status === "in_progress")
        throw new HttpError(400, "FAILED_PRECONDITION", `interaction ${previous.id} is still in progress`);
      if (previous.status === "requires_action") {
        const answered = new Set(input.results.map((r) => r.call_id));
        const missing = [...chain.pending.keys()].filter((callId) => !answered.has(callId));
        if (missing.length > 0)
          throw new HttpError(
            400,
            "INVALID_ARGUMENT",
            `interaction ${previous.id} requires a function_result for call ${missing.join(", ")}`,
          );
        const unknown = input.results.filter((r) => !chain.pending.has(r.call_id));
        if (unknown.length > 0)
          throw new HttpError(400, "INVALID_ARGUMENT", `no pending call ${unknown.map((r) => r.call_id).join(", ")}`);
      } else {
        if (input.results.length > 0)
          throw new HttpError(400, "INVALID_ARGUMENT", `interaction ${previous.id} has no pending function call`);
        if (input.text.trim() === "") throw new HttpError(400, "INVALID_ARGUMENT", "input holds no text");
      }
    } else {
      if (input.results.length > 0)
        throw new HttpError(400, "INVALID_ARGUMENT", "function_result without previous_interaction_id");
      if (input.text.trim() === "") throw new HttpError(400, "INVALID_ARGUMENT", "input holds no text");
      chain = await newChain(body, agentConfig);
    }
    const record = newRecord(chain, agentName, body, background, previous?.id);
    if (chain.environmentId !== undefined) record.environmentId = chain.environmentId;
    interactions.set(record.id, record);
    emit(record, { event_type: "interaction.created", interaction: lifecycle(record) });
    chain.current = record;
    if (previous?.status === "requires_action") {
      for (const r of input.results) {
        const waiting = chain.pending.get(r.call_id);
        chain.pending.delete(r.call_id);
        if (r.is_error === true)
          waiting?.reject(new Error(typeof r.result === "string" ? r.result : JSON.stringify(r.result)));
        else waiting?.resolve(r.result);
      }
    } else {
      void runTurn(chain, input.text);
    }
    if (stream) return streamEvents(record, 0, undefined, res);
    if (!background) await record.settled;
    sendJson(res, 200, resource(record, false));
  }

  async function newChain(body: Json, agentConfig: Json | undefined): Promise<Chain> {
    const declared = Array.isArray(body["tools"]) ? (body["tools"] as Json[]) : [];
    const chain = { pending: new Map(), running: false, functions: new Set<string>() } as unknown as Chain;
    const tools: Tool[] = [];
    for (const tool of declared) {
      // Tool_2: only FunctionT ({ type: "function", name, description, parameters }) is emulated.
      if (tool["type"] !== "function")
        throw new HttpError(
          400,
          "INVALID_ARGUMENT",
          `tools: type ${JSON.stringify(tool["type"])} is not emulated (only "function")`,
        );
      const name = tool["name"];
      if (typeof name !== "string" || name === "")
        throw new HttpError(400, "INVALID_ARGUMENT", "tools: a function needs a name");
      chain.functions.add(name);
      tools.push(
        clientFunction(
          chain,
          name,
          typeof tool["description"] === "string" ? tool["description"] : name,
          tool["parameters"],
        ),
      );
    }
    const environment = body["environment"];
    if (typeof environment === "string") chain.environmentId = environment;
    else if (typeof environment === "object" && environment !== null) {
      const given = (environment as Json)["environment_id"];
      chain.environmentId = typeof given === "string" ? given : `env-${randomUUID()}`;
    }
    let builder = Agent.builder()
      .transport(harness)
      .workspaces(options.workspace)
      .enabledTools(...HOSTED_TOOLS)
      .allowAll();
    if (tools.length > 0) builder = builder.tool(...tools);
    const maxTotal = agentConfig?.["max_total_tokens"];
    if (maxTotal !== undefined) {
      const n = Number(maxTotal); // AntigravityAgentConfig.max_total_tokens is a string (int64 as JSON)
      if (!Number.isSafeInteger(n) || n <= 0)
        throw new HttpError(400, "INVALID_ARGUMENT", "agent_config.max_total_tokens must be a positive integer");
      builder = builder.budget({ maxTotalTokens: n });
    }
    if (typeof body["system_instruction"] === "string")
      builder = builder.systemInstructions(body["system_instruction"]);
    try {
      chain.agent = await builder.build().start();
    } catch (error) {
      throw new HttpError(400, "INVALID_ARGUMENT", SdkError.from(error).message);
    }
    chains.add(chain);
    return chain;
  }

  /** A declared client function: its call ends the current interaction with `requires_action`. */
  function clientFunction(chain: Chain, name: string, description: string, parameters: unknown): Tool {
    return defineTool({
      name,
      description,
      ...(typeof parameters === "object" && parameters !== null ? { parameters: parameters as never } : {}),
      call: (args: unknown, context: ToolContext) =>
        new Promise((resolve, reject) => {
          const record = chain.current;
          closeOpen(record);
          const index = record.steps.length;
          // FunctionCallStep { type, id, name, arguments }.
          const step = { type: "function_call", id: context.callId, name, arguments: (args ?? {}) as Json };
          record.steps.push(step);
          emit(record, { event_type: "step.start", index, step });
          emit(record, { event_type: "step.stop", index });
          chain.pending.set(context.callId, { name, resolve, reject });
          context.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
          // The harness runs a model response's calls one after another, so this call is the only one
          // the interaction waits for (docs/hosted.md, the emulator's choices): requires_action now.
          setImmediate(() => {
            if (chain.pending.size > 0 && chain.current === record && record.status === "in_progress") {
              finish(record, "requires_action");
            }
          });
        }),
    } as never);
  }

  async function runTurn(chain: Chain, text: string): Promise<void> {
    chain.running = true;
    const stream = chain.agent.chat(text);
    chain.stream = stream;
    try {
      for await (const event of stream.events({ throughCancel: true })) mapEvent(chain, event);
    } catch {
      // The outcome says how the turn ended.
    }
    const outcome = await stream.outcome();
    chain.running = false;
    chain.stream = undefined;
    const record = chain.current;
    if (record.status !== "in_progress" && record.status !== "requires_action") return;
    endTurn(record, outcome);
  }

  function endTurn(record: InteractionRecord, outcome: TurnSummary): void {
    if (outcome.usage !== undefined) record.usage = wireUsage(outcome.usage);
    if (record.cancelRequested === true) return finish(record, "cancelled");
    if (outcome.error !== undefined) {
      if (outcome.error.code === ErrorCode.Canceled) return finish(record, "cancelled");
      // ErrorEvent_2 { error: ErrorT { code, message } }.
      const error = { code: outcome.error.code, message: outcome.error.message };
      record.errors = [error];
      emit(record, { event_type: "error", error });
      return finish(record, "failed");
    }
    finish(record, outcome.stopReason !== undefined ? "budget_exceeded" : "completed");
  }

  function mapEvent(chain: Chain, event: ChatEvent): void {
    const record = chain.current;
    if (record.status !== "in_progress") return;
    switch (event.type) {
      case "thought":
      case "text": {
        const kind = event.type === "thought" ? "thought" : "model_output";
        if (record.open?.kind !== kind || record.open.stepIndex !== event.stepIndex) {
          closeOpen(record);
          const index = record.steps.length;
          // ThoughtStep { type: "thought", summary? } / ModelOutputStep { type: "model_output", content? }.
          const step: Json =
            kind === "thought" ? { type: "thought", summary: [] } : { type: "model_output", content: [] };
          record.steps.push(step);
          record.open = { index, kind, stepIndex: event.stepIndex };
          emit(record, { event_type: "step.start", index, step: { type: kind } });
        }
        const index = record.open?.index ?? 0;
        const step = record.steps[index] as Json;
        const parts = (kind === "thought" ? step["summary"] : step["content"]) as Json[];
        const last = parts.at(-1);
        if (last === undefined) parts.push({ type: "text", text: event.text });
        else last["text"] = `${String(last["text"])}${event.text}`;
        // ThoughtSummaryDelta { type: "thought_summary", content: TextContent } / TextDelta { type: "text", text }.
        const delta =
          kind === "thought"
            ? { type: "thought_summary", content: { type: "text", text: event.text } }
            : { type: "text", text: event.text };
        emit(record, { event_type: "step.delta", index, delta });
        return;
      }
      case "toolCall": {
        if (chain.functions.has(event.toolCall.name)) return; // the function's own call reports it
        closeOpen(record);
        const index = record.steps.length;
        const step = {
          type: "function_call",
          id: event.toolCall.id,
          name: event.toolCall.name,
          arguments: (event.toolCall.args ?? {}) as Json,
        };
        record.steps.push(step);
        emit(record, { event_type: "step.start", index, step });
        emit(record, { event_type: "step.stop", index });
        return;
      }
      case "toolResult":
      case "toolError": {
        if (chain.functions.has(event.toolCall.name)) return; // answered by the client's function_result
        closeOpen(record);
        const index = record.steps.length;
        // FunctionResultStep { type, call_id, name?, result, is_error? }.
        const step: Json =
          event.type === "toolResult"
            ? {
                type: "function_result",
                call_id: event.toolCall.id,
                name: event.toolCall.name,
                result: resultValue(event.result),
              }
            : {
                type: "function_result",
                call_id: event.toolCall.id,
                name: event.toolCall.name,
                result: event.error,
                is_error: true,
              };
        record.steps.push(step);
        emit(record, { event_type: "step.start", index, step });
        emit(record, { event_type: "step.stop", index });
        return;
      }
      case "usage":
        record.usage = wireUsage(event.usage);
        return;
      default:
        return;
    }
  }

  function closeOpen(record: InteractionRecord): void {
    if (record.open === undefined) return;
    const index = record.open.index;
    record.open = undefined;
    emit(record, { event_type: "step.stop", index, ...(record.usage === undefined ? {} : { usage: record.usage }) });
  }

  function finish(record: InteractionRecord, status: Exclude<EmulatedStatus, "in_progress">): void {
    closeOpen(record);
    record.updated = new Date().toISOString();
    // InteractionStatusUpdate { interaction_id, status, usage? }, then InteractionCompletedEvent { interaction }.
    emit(record, {
      event_type: "interaction.status_update",
      interaction_id: record.id,
      status,
      ...(record.usage === undefined ? {} : { usage: record.usage }),
    });
    record.status = status; // after the update went out: a stream ends once the status is final and every event was written
    emit(record, { event_type: "interaction.completed", interaction: lifecycle(record) });
    record.settle();
  }

  async function cancelInteraction(record: InteractionRecord): Promise<void> {
    if (record.status !== "in_progress" && record.status !== "requires_action") return;
    const chain = record.chain;
    if (chain.current !== record) return;
    for (const waiting of chain.pending.values()) waiting.reject(new Error("cancelled"));
    chain.pending.clear();
    if (record.status === "requires_action") {
      // Its stream already ended: the resource alone changes.
      record.status = "cancelled";
      record.updated = new Date().toISOString();
      await chain.stream?.abort().catch(() => {});
      return;
    }
    // The turn ends Canceled with the usage spent so far; runTurn then finishes the interaction "cancelled".
    record.cancelRequested = true;
    const stream = chain.stream;
    if (stream === undefined) return finish(record, "cancelled");
    await stream.abort().catch(() => {});
    await record.settled;
  }

  function newRecord(
    chain: Chain,
    agent: string,
    body: Json,
    background: boolean,
    previousInteractionId: string | undefined,
  ): InteractionRecord {
    const now = new Date().toISOString();
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    return {
      id: `interaction-${randomUUID()}`,
      agent,
      status: "in_progress",
      created: now,
      updated: now,
      background,
      previousInteractionId,
      agentConfig: body["agent_config"] as Json | undefined,
      input: body["input"],
      steps: [],
      events: [],
      listeners: new Set(),
      chain,
      settled,
      settle,
      deleted: false,
    };
  }

  function emit(record: InteractionRecord, body: EventBody): void {
    record.events.push({ ...body, event_id: `${record.id}:${record.events.length + 1}` });
    for (const listener of record.listeners) listener();
  }

  function streamEvents(
    record: InteractionRecord,
    from: number,
    req: IncomingMessage | undefined,
    res: ServerResponse,
  ): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let next = from;
    return new Promise<void>((resolve) => {
      const pump = (): void => {
        while (next < record.events.length) {
          const event = record.events[next++] as Json;
          res.write(`data: ${JSON.stringify(event)}\n\n`);
          if (event["event_type"] === "interaction.completed") {
            done();
            return;
          }
        }
        // Resumed after the last event of a finished interaction: nothing more will come.
        if (record.status !== "in_progress") done();
      };
      const done = (): void => {
        record.listeners.delete(pump);
        res.end();
        resolve();
      };
      record.listeners.add(pump);
      (req ?? res).once("close", () => {
        record.listeners.delete(pump);
        resolve();
      });
      pump();
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostText}:${address.port}/`,
    port: address.port,
    close() {
      closing ??= (async () => {
        for (const record of interactions.values()) await cancelInteraction(record);
        for (const chain of chains) await chain.agent.stop().catch(() => {});
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await harness.close();
      })();
      return closing;
    },
  };
}

/** `InteractionSseEventInteraction`: the partial resource of lifecycle events. */
function lifecycle(record: InteractionRecord): Json {
  return {
    id: record.id,
    status: record.status,
    agent: record.agent,
    created: record.created,
    updated: record.updated,
    ...(record.usage === undefined ? {} : { usage: record.usage }),
  };
}

/** `Interaction`: the resource `create` (without stream), `get`, and `cancel` answer. */
function resource(record: InteractionRecord, includeInput: boolean): Json {
  return {
    id: record.id,
    agent: record.agent,
    status: record.status,
    created: record.created,
    updated: record.updated,
    steps: record.steps,
    ...(record.previousInteractionId === undefined ? {} : { previous_interaction_id: record.previousInteractionId }),
    ...(record.environmentId === undefined ? {} : { environment_id: record.environmentId }),
    ...(record.agentConfig === undefined ? {} : { agent_config: record.agentConfig }),
    ...(record.usage === undefined ? {} : { usage: record.usage }),
    ...(record.errors === undefined ? {} : { errors: record.errors }),
    ...(includeInput ? { input: record.input } : {}),
  };
}

/** `Usage` from the harness's usage: `total_input_tokens`, `total_output_tokens`, `total_thought_tokens`, `total_cached_tokens`, `total_tokens`. */
function wireUsage(usage: UsageMetadata): Json {
  return {
    total_input_tokens: usage.promptTokenCount,
    total_output_tokens: usage.candidatesTokenCount,
    total_thought_tokens: usage.thoughtsTokenCount,
    total_cached_tokens: usage.cachedContentTokenCount,
    total_tokens: usage.totalTokenCount,
  };
}

/** A hosted tool's result as `FunctionResultStep.result` (a string or an object). */
function resultValue(result: unknown): unknown {
  if (typeof result === "string") return result;
  if (typeof result === "object" && result !== null && !Array.isArray(result)) return result;
  return JSON.stringify(result ?? null);
}

/** `InteractionsInput` (`string | Content_2 | Content_2[] | Step[]`): its text and its function results. */
function readInput(input: unknown): {
  text: string;
  results: { call_id: string; result: unknown; is_error?: boolean }[];
} {
  if (typeof input === "string") return { text: input, results: [] };
  if (input === undefined) return { text: "", results: [] };
  const items = Array.isArray(input) ? input : [input];
  const texts: string[] = [];
  const results: { call_id: string; result: unknown; is_error?: boolean }[] = [];
  const textOf = (content: unknown): void => {
    const c = content as Json | null;
    if (c?.["type"] !== "text" || typeof c["text"] !== "string")
      throw new HttpError(
        400,
        "INVALID_ARGUMENT",
        `input: only text content is emulated, got ${JSON.stringify(c?.["type"])}`,
      );
    texts.push(c["text"]);
  };
  for (const item of items as Json[]) {
    if (typeof item !== "object" || item === null)
      throw new HttpError(400, "INVALID_ARGUMENT", "input: an item is not an object");
    if (item["type"] === "function_result") {
      if (typeof item["call_id"] !== "string")
        throw new HttpError(400, "INVALID_ARGUMENT", "input: function_result needs call_id");
      results.push({
        call_id: item["call_id"],
        result: item["result"],
        ...(item["is_error"] === true ? { is_error: true } : {}),
      });
    } else if (item["type"] === "user_input") {
      for (const content of (item["content"] as unknown[] | undefined) ?? []) textOf(content);
    } else textOf(item);
  }
  return { text: texts.join("\n"), results };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024 * 1024) throw new HttpError(413, "INVALID_ARGUMENT", "request body larger than 16 MiB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(text: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "INVALID_ARGUMENT", "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new HttpError(400, "INVALID_ARGUMENT", "the body is not a JSON object");
  return value as Json;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
