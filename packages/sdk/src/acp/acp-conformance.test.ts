import * as acp from "@agentclientprotocol/sdk";
import { defineConnectionConformance, type ClosableConformanceSubject } from "@antigravity-ts/test-kit";
import { describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ErrorCode, SdkError } from "../errors.js";
import { allowAll, deny } from "../policies/policy.js";
import { StepStatus, StepType } from "../step.js";
import { ACP_CAPABILITIES, acpAgent } from "./acp-agent.js";
import { AcpConnection } from "./acp-connection.js";
import type { AcpSessionEvent } from "./acp-steps.js";

// The core's acpAgent({ stream }) over an in-memory pair of JSON-RPC message streams, against an
// ACP agent made with the official library's agent side (`agent()...connect(stream)`), scripted
// for the conformance kit's plays. Runs in any runtime: no process, no node:* import.

/** Two ends of an in-memory JSON-RPC message channel. */
function memoryPair(): { client: acp.Stream; agent: acp.Stream } {
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  return {
    client: { writable: toAgent.writable, readable: toClient.readable },
    agent: { writable: toClient.writable, readable: toAgent.readable },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const USAGE = { inputTokens: 10, outputTokens: 4, totalTokens: 14 };

/** A scripted ACP agent: the prompt's text names the play. */
function scriptedAgent(stream: acp.Stream, options: { loadSession?: boolean } = {}) {
  const cancelled = new Set<string>();
  let sessions = 0;
  const app = acp
    .agent({ name: "scripted" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: options.loadSession ?? false, promptCapabilities: { image: true } },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `session-${++sessions}` }))
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "earlier question" } },
      });
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "earlier answer" } },
      });
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      cancelled.add(params.sessionId);
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const { sessionId } = params;
      cancelled.delete(sessionId);
      const say = (update: acp.SessionUpdate) =>
        client.notify(acp.methods.client.session.update, { sessionId, update });
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
      const respond = (stopReason: acp.StopReason) => ({ stopReason, usage: USAGE }) as acp.PromptResponse;
      if (text.includes("slow")) {
        for (let i = 0; i < 2_000 && !cancelled.has(sessionId); i++) {
          await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `word${i} ` } });
          await sleep(20);
        }
        return respond(cancelled.has(sessionId) ? "cancelled" : "end_turn");
      }
      if (text.includes("failing")) {
        await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "About to fail." } });
        throw acp.RequestError.internalError(undefined, "the scripted model call fails");
      }
      if (text.includes("late")) {
        await say({
          sessionUpdate: "tool_call",
          toolCallId: "late-1",
          title: "Reading a file",
          kind: "read",
          status: "in_progress",
          locations: [{ path: "/w/a.txt" }],
        });
        setTimeout(
          () =>
            void say({
              sessionUpdate: "tool_call_update",
              toolCallId: "late-1",
              status: "completed",
              content: [{ type: "content", content: { type: "text", text: "[delivered after the end]" } }],
            }),
          20,
        );
        return respond("end_turn");
      }
      if (text.includes("edit")) {
        await say({
          sessionUpdate: "plan",
          entries: [{ content: "edit the file", priority: "high", status: "in_progress" }],
        });
        const answer = await client.request(acp.methods.client.session.requestPermission, {
          sessionId,
          toolCall: {
            toolCallId: "edit-1",
            kind: "edit",
            title: "Editing a.txt",
            status: "pending",
            content: [{ type: "diff", path: "/w/a.txt", oldText: "a", newText: "b" }],
            locations: [{ path: "/w/a.txt", line: 1 }],
          },
          options: [
            { optionId: "yes", name: "Allow", kind: "allow_once" },
            { optionId: "no", name: "Reject", kind: "reject_once" },
          ],
        });
        const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "yes";
        await say({
          sessionUpdate: "tool_call_update",
          toolCallId: "edit-1",
          status: allowed ? "completed" : "failed",
        });
        await say({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: allowed ? "edited" : "not edited" },
        });
        return respond("end_turn");
      }
      if (text.includes("long")) {
        await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Out of tokens" } });
        return respond("max_tokens");
      }
      await say({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Thinking." } });
      await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello " } });
      await say({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "conformance" } });
      return respond("end_turn");
    });
  return app.connect(stream);
}

async function subject(): Promise<ClosableConformanceSubject> {
  const pair = memoryPair();
  const agent = scriptedAgent(pair.agent);
  const connection = await AcpConnection.open({ stream: pair.client, cwd: "/w", confirmTool: () => true });
  return {
    connection,
    prompt: (play) => `conformance ${play} turn`,
    close: async () => {
      await connection.disconnect();
      agent.close();
    },
  };
}

defineConnectionConformance(
  "AcpConnection over an in-memory stream, official library agent",
  ACP_CAPABILITIES,
  subject,
);

describe("acpAgent({ stream }) in an Agent", () => {
  const build = (policies = [allowAll()], events: AcpSessionEvent[] = [], loadSession = false) => {
    const pair = memoryPair();
    const peer = scriptedAgent(pair.agent, { loadSession });
    const agent = Agent.builder()
      .connection(acpAgent({ stream: pair.client, cwd: "/w", onSessionUpdate: (e) => events.push(e) }))
      .policies(policies)
      .build();
    return { agent, peer };
  };

  it("a text turn: thought, text, usage from PromptResponse.usage", async () => {
    const { agent, peer } = build();
    const started = await agent.start();
    const response = await started.chatToCompletion("hello");
    expect(response.text).toBe("Hello conformance");
    expect(response.thinking).toBe("Thinking.");
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 10,
      candidatesTokenCount: 4,
      totalTokenCount: 14,
    });
    await started.stop();
    peer.close();
  });

  it("a permission allowed and one denied by policy; the tool step keeps kind, locations and the diff; plan is an event", async () => {
    const events: AcpSessionEvent[] = [];
    const allowed = build([allowAll()], events);
    const started = await allowed.agent.start();
    const response = await started.chatToCompletion("edit please");
    expect(response.text).toBe("edited");
    const tool = response.steps.find((s) => s.type === StepType.ToolCall);
    expect(tool).toMatchObject({
      status: StepStatus.Done,
      toolCalls: [{ id: "edit-1", name: "edit", canonicalPath: "/w/a.txt" }],
    });
    expect(events.map((e) => e.sessionUpdate)).toContain("plan");
    await started.stop();
    allowed.peer.close();

    const denied = build([deny("edit"), allowAll()]);
    const deniedStarted = await denied.agent.start();
    const refused = await deniedStarted.chatToCompletion("edit please");
    expect(refused.text).toBe("not edited");
    expect(refused.steps.find((s) => s.type === StepType.ToolCall)?.status).toBe(StepStatus.Error);
    await deniedStarted.stop();
    denied.peer.close();
  });

  it("the tool call's ACP details: kind, status, locations and diffs", async () => {
    const pair = memoryPair();
    const peer = scriptedAgent(pair.agent);
    const connection = await AcpConnection.open({ stream: pair.client, cwd: "/w", confirmTool: () => true });
    const turn = await connection.send("edit please");
    await turn.over();
    const step = turn.latestSteps().find((s) => s.type === StepType.ToolCall);
    expect(connection.toolCallDetails(step?.id ?? "")).toMatchObject({
      kind: "edit",
      status: "completed",
      locations: [{ path: "/w/a.txt", line: 1 }],
      diffs: [{ path: "/w/a.txt", oldText: "a", newText: "b" }],
    });
    await connection.disconnect();
    peer.close();
  });

  it("stopReason max_tokens becomes MAX_OUTPUT_TOKENS_EXCEEDED", async () => {
    const { agent, peer } = build();
    const started = await agent.start();
    const response = await started.chatToCompletion("too long");
    expect(response.stopReason).toBe("MAX_OUTPUT_TOKENS_EXCEEDED");
    await started.stop();
    peer.close();
  });

  it("options the wire cannot honour are refused at build() with Unsupported naming the option and acp", () => {
    const pair = memoryPair();
    const error = (() => {
      try {
        Agent.builder()
          .connection(acpAgent({ stream: pair.client, cwd: "/w" }))
          .hook({ onSessionStart: () => {} })
          .allowAll()
          .build();
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({
      code: ErrorCode.Unsupported,
      details: { option: "hooks (onSessionStart)", wire: "acp" },
    });
  });

  it("options ACP has no field for are refused at start() with Unsupported naming them", async () => {
    for (const [configure, option] of [
      [(b: ReturnType<typeof Agent.builder>) => b.model("gemini-x"), "model / models"],
      [(b: ReturnType<typeof Agent.builder>) => b.systemInstructions("be brief"), "systemInstructions"],
      [(b: ReturnType<typeof Agent.builder>) => b.workspaces("/a", "/b"), "workspaces (more than one)"],
    ] as const) {
      const pair = memoryPair();
      const agent = configure(Agent.builder().connection(acpAgent({ stream: pair.client, cwd: "/w" })))
        .allowAll()
        .build();
      await expect(agent.start()).rejects.toMatchObject({
        code: ErrorCode.Unsupported,
        details: { option, wire: "acp" },
      });
    }
  });

  it("resume: session/load replays the conversation as the initial history; without loadSession it is Unsupported", async () => {
    const pair = memoryPair();
    const peer = scriptedAgent(pair.agent, { loadSession: true });
    const connection = await AcpConnection.open({
      stream: pair.client,
      cwd: "/w",
      confirmTool: () => true,
      loadSessionId: "session-7",
    });
    expect(connection.conversationId).toBe("session-7");
    expect(connection.initialHistory.map((s) => s.content)).toEqual(["earlier question", "earlier answer"]);
    // the replayed answer is closed (DONE, a complete response) once the next prompt starts
    await (await connection.send("hello")).over();
    expect(connection.initialHistory.map((s) => [s.content, s.isCompleteResponse])).toEqual([
      ["earlier question", false],
      ["earlier answer", true],
    ]);
    await connection.disconnect();
    peer.close();

    const other = memoryPair();
    const noLoad = scriptedAgent(other.agent, { loadSession: false });
    await expect(
      AcpConnection.open({ stream: other.client, cwd: "/w", confirmTool: () => true, loadSessionId: "session-7" }),
    ).rejects.toMatchObject({ code: ErrorCode.Unsupported });
    noLoad.close();
  });
});
