// The reference harness as an ACP agent (`antigravity-harness --acp`, docs/acp.md): the official
// library's agent side (`@agentclientprotocol/sdk` 2.x, stable ACP v1: `agent()`, `methods`,
// `PROTOCOL_VERSION`) in front of the harness's own sessions, reached in process through the SDK's
// `createHarnessConnection` over `createInMemoryHarness`. Field names: the library's
// dist/v1/schema/types.gen.d.ts.
import * as acp from "@agentclientprotocol/sdk";
import {
  allowAll,
  deferToUser,
  ErrorCode,
  SdkError,
  StepSource,
  StepStatus,
  StepTarget,
  type Step,
  type ToolCall,
} from "@antigravity-ts/sdk";
import { createHarnessConnection, type HarnessConnection } from "@antigravity-ts/sdk/connection";
import type { Logger } from "../log.js";
import type { SessionStore } from "../loop/stored-sessions.js";
import type { ScriptFile } from "../providers/script-format.js";
import { createInMemoryHarness, type InMemoryHarness } from "../server/in-memory-harness.js";

/** Options of {@link serveAcp}. */
export interface AcpServerOptions {
  /** Workspace of a session whose `cwd` is not absolute (ACP requires absolute paths). */
  workspace: string;
  script?: ScriptFile | undefined;
  /** Where sessions are kept (`--storage DIR`): `session/load` finds them there. Default: in memory. */
  store?: SessionStore | undefined;
  /** Model selection (`ANTIGRAVITY_MODEL_PROVIDER`, `GEMINI_API_KEY` ...); default the scripted model. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  log?: Logger | undefined;
}

/** A running ACP server: closes its sessions and the harness. */
export interface AcpServer {
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** ACP tool kinds (`ToolKind`) of the harness's built-in tools. */
const KINDS: Record<string, acp.ToolKind> = {
  view_file: "read",
  list_dir: "read",
  find: "search",
  grep_search: "search",
  write_to_file: "edit",
  replace_file_content: "edit",
  multi_replace_file_content: "edit",
  run_command: "execute",
  search_web: "fetch",
  read_url_content: "fetch",
};

const TOOL_STATUS: Partial<Record<string, acp.ToolCallStatus>> = {
  [StepStatus.Active]: "in_progress",
  [StepStatus.WaitingForUser]: "pending",
  [StepStatus.Done]: "completed",
  [StepStatus.Error]: "failed",
  [StepStatus.Canceled]: "failed",
  [StepStatus.TerminalError]: "failed",
};

/**
 * Serves ACP on `stream` (`ndJsonStream(stdout, stdin)` for `--acp`): `initialize` (loadSession,
 * text prompts, no auth), `session/new` and `session/load` open a harness session in `cwd`,
 * `session/prompt` runs a turn and streams its steps as `session/update`s, `session/cancel` halts
 * it, and the harness's tool confirmations — `run_command`, gated by `deferToUser` — become
 * `session/request_permission`s.
 */
export function serveAcp(stream: acp.Stream, options: AcpServerOptions): AcpServer {
  const harness: InMemoryHarness = createInMemoryHarness({
    workspace: options.workspace,
    script: options.script,
    store: options.store,
    env: options.env,
    log: options.log,
  });
  const sessions = new Map<string, HarnessConnection>();
  let context: acp.AgentContext | undefined;

  const open = async (cwd: string, sessionId: string | undefined): Promise<HarnessConnection> => {
    const workspace = cwd.startsWith("/") || /^[A-Za-z]:[\\/]/.test(cwd) ? cwd : options.workspace;
    let id = sessionId ?? "";
    const connection = await createHarnessConnection({
      transport: harness,
      config: {
        cascadeId: id,
        workspaces: [{ workspaceType: { case: "filesystemWorkspace", value: { directory: workspace } } }],
        // The file and command tools (HarnessConfig.harness_side_tools); no ask_question (ACP has no question request), no network tools.
        harnessSideTools: {
          find: { enabled: true },
          runCommand: { enabled: true },
          fileEdit: { enabled: true },
          viewFile: { enabled: true },
          writeToFile: { enabled: true },
          grepSearch: { enabled: true },
          listDir: { enabled: true },
        },
      },
      policies: [deferToUser("run_command"), allowAll()],
      confirmTool: (call, step) => permission(id, call, step),
      timeoutMs: 60_000,
    });
    id = connection.conversationId;
    sessions.set(id, connection);
    return connection;
  };

  const permission = async (sessionId: string, call: ToolCall, step: Step): Promise<boolean> => {
    if (context === undefined) return false;
    const answer = await context.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: {
        toolCallId: toolCallId(call, step),
        name: call.name,
        title: call.name,
        kind: KINDS[call.name] ?? "other",
        status: "pending",
        rawInput: call.args,
      },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    return answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
  };

  const app = acp
    .agent({ name: "antigravity-harness" })
    .onConnect((connection) => {
      context = connection.client;
    })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: {} },
      authMethods: [],
      agentInfo: { name: "antigravity-harness", version: "0.1.0" },
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => ({
      sessionId: (await open(params.cwd, undefined)).conversationId,
    }))
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      let connection: HarnessConnection;
      try {
        connection = await open(params.cwd, params.sessionId);
      } catch {
        throw acp.RequestError.sessionNotFound(params.sessionId);
      }
      const updates = new UpdateWriter(params.sessionId, client);
      for (const step of connection.initialHistory)
        await updates.step({ ...step, contentDelta: step.content, thinkingDelta: step.thinking });
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
      await sessions
        .get(params.sessionId)
        ?.halt()
        .catch(() => undefined);
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const connection = sessions.get(params.sessionId);
      if (connection === undefined) throw acp.RequestError.sessionNotFound(params.sessionId);
      const text = params.prompt
        .map((block) =>
          block.type === "text"
            ? block.text
            : block.type === "resource" && "text" in block.resource
              ? block.resource.text
              : "",
        )
        .join("\n");
      if (text.trim() === "")
        throw acp.RequestError.invalidParams(
          undefined,
          "the prompt has no text (this agent takes text and embedded text resources)",
        );
      const before = connection.usage.total;
      const turn = await connection.send(text);
      const updates = new UpdateWriter(params.sessionId, client);
      let error: SdkError | undefined;
      try {
        for await (const step of connection.receiveSteps()) await updates.step(step);
      } catch (caught) {
        error = SdkError.from(caught);
      }
      await turn.over();
      const after = connection.usage.total;
      // `usage` is ACP's unstable PromptResponse.usage (`Usage`, @agentclientprotocol/sdk/unstable).
      const usage = {
        inputTokens: after.promptTokenCount - before.promptTokenCount,
        outputTokens: after.candidatesTokenCount - before.candidatesTokenCount,
        totalTokens: after.totalTokenCount - before.totalTokenCount,
        thoughtTokens: after.thoughtsTokenCount - before.thoughtsTokenCount,
      };
      if (error?.code === ErrorCode.Canceled) return { stopReason: "cancelled", usage } as acp.PromptResponse;
      if (error !== undefined) throw acp.RequestError.internalError({ code: error.code }, error.message);
      const stop = connection.lastStopReason;
      const stopReason: acp.StopReason =
        stop === undefined ? "end_turn" : stop === "MAX_OUTPUT_TOKENS_EXCEEDED" ? "max_tokens" : "max_turn_requests";
      return { stopReason, usage } as acp.PromptResponse;
    });

  const connection = app.connect(stream);
  const close = async (): Promise<void> => {
    await Promise.all([...sessions.values()].map((session) => session.disconnect().catch(() => undefined)));
    sessions.clear();
    connection.close();
    await harness.close();
  };
  const closed = connection.closed.then(close, close);
  return { closed, close };
}

function toolCallId(call: ToolCall, step: Step): string {
  return call.id !== "" ? call.id : step.id;
}

/** Writes a turn's step updates as `session/update`s: text and thought deltas as chunks, tool calls once, then their status changes. */
class UpdateWriter {
  readonly #sessionId: string;
  readonly #client: acp.AgentContext;
  readonly #toolStatus = new Map<string, acp.ToolCallStatus>();

  constructor(sessionId: string, client: acp.AgentContext) {
    this.#sessionId = sessionId;
    this.#client = client;
  }

  async step(step: Step): Promise<void> {
    const send = (update: acp.SessionUpdate) =>
      this.#client.notify(acp.methods.client.session.update, { sessionId: this.#sessionId, update });
    if (step.source === StepSource.User && step.contentDelta !== "") {
      await send({
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: step.contentDelta },
        messageId: step.id,
      });
      return;
    }
    const toUser = step.target !== StepTarget.Environment;
    if (toUser && step.source === StepSource.Model && step.thinkingDelta !== "")
      await send({
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: step.thinkingDelta },
        messageId: `${step.id}:thought`,
      });
    if (step.source === StepSource.Model && step.target === StepTarget.User && step.contentDelta !== "")
      await send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: step.contentDelta },
        messageId: step.id,
      });
    for (const call of step.toolCalls) {
      const id = toolCallId(call, step);
      const status = TOOL_STATUS[step.status] ?? "in_progress";
      const locations = call.canonicalPath === undefined ? [] : [{ path: call.canonicalPath }];
      const previous = this.#toolStatus.get(id);
      if (previous === undefined) {
        await send({
          sessionUpdate: "tool_call",
          toolCallId: id,
          name: call.name,
          title: call.name,
          kind: KINDS[call.name] ?? "other",
          status,
          rawInput: call.args,
          locations,
        });
      } else if (previous !== status) {
        const content: acp.ToolCallContent[] =
          step.error === "" ? [] : [{ type: "content", content: { type: "text", text: step.error } }];
        await send({
          sessionUpdate: "tool_call_update",
          toolCallId: id,
          status,
          ...(content.length > 0 ? { content } : {}),
        });
      }
      this.#toolStatus.set(id, status);
    }
  }
}
