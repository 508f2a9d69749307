// ACP `session/update` → SDK steps (docs/acp.md, "The mapping"). Every ACP field read here is a
// field of `@agentclientprotocol/sdk` 2.x's generated schema (dist/v1/schema/types.gen.d.ts:
// SessionUpdate, ContentChunk, ToolCall, ToolCallUpdate, ToolCallContent, Diff, ToolCallLocation).
import type {
  ContentBlock,
  Diff,
  SessionUpdate,
  ToolCall as AcpToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk";
import { newStep, StepSource, StepStatus, StepTarget, StepType, type Step, type ToolCall } from "../step.js";

/** What ACP says of a tool call beyond the SDK's `ToolCall`: the wire's own view, kept per step. */
export interface AcpToolCallDetails {
  readonly toolCallId: string;
  readonly title: string;
  readonly kind: ToolKind | undefined;
  readonly status: ToolCallStatus | undefined;
  /** `ToolCallContent` as the agent last replaced it (content blocks, diffs, terminals). */
  readonly content: readonly ToolCallContent[];
  readonly locations: readonly ToolCallLocation[];
  /** The `diff` items of `content`. */
  readonly diffs: readonly Diff[];
  readonly rawInput: unknown;
  readonly rawOutput: unknown;
}

/**
 * The `session/update` kinds that become no step: reported as they are (the library's own typed
 * union members) to `onSessionUpdate`.
 */
export type AcpSessionEvent = Exclude<
  SessionUpdate,
  {
    sessionUpdate:
      | "agent_message_chunk"
      | "agent_thought_chunk"
      | "user_message_chunk"
      | "tool_call"
      | "tool_call_update";
  }
>;

/** The text of a content block: text as is, other blocks as a short marker (they have no text). */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `[${block.name}](${block.uri})`;
    case "resource":
      return "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    default:
      return `[${block.type}]`;
  }
}

/** The text a tool call's content carries (its `content` items; diffs and terminals by path / id). */
export function toolContentText(content: readonly ToolCallContent[]): string {
  return content
    .map((item) =>
      item.type === "content"
        ? blockText(item.content)
        : item.type === "diff"
          ? `diff ${item.path}`
          : `terminal ${item.terminalId}`,
    )
    .join("\n");
}

const STATUS: Record<ToolCallStatus, StepStatus> = {
  pending: StepStatus.Active,
  in_progress: StepStatus.Active,
  completed: StepStatus.Done,
  failed: StepStatus.Error,
};

/**
 * Builds the steps of one ACP session: one trajectory (the session id), step indexes counted
 * from 0 across the session. Chunks of one message (`messageId`, or consecutive chunks of one kind
 * when the agent sends none) accumulate into one step; a tool call is one step updated by its
 * `tool_call_update`s.
 */
export class AcpStepBuilder {
  readonly #trajectoryId: string;
  #nextIndex = 0;
  /** The text or thought step being streamed, if any. */
  #open: { kind: "text" | "thought"; messageId: string | undefined; step: Step } | undefined;
  readonly #tools = new Map<string, { step: Step; details: AcpToolCallDetails }>();

  constructor(trajectoryId: string) {
    this.#trajectoryId = trajectoryId;
  }

  /** The ACP details of a tool step, by step id. */
  details(stepId: string): AcpToolCallDetails | undefined {
    for (const entry of this.#tools.values()) if (entry.step.id === stepId) return entry.details;
    return undefined;
  }

  /** The tool step of an ACP tool call id. */
  toolStep(toolCallId: string): Step | undefined {
    return this.#tools.get(toolCallId)?.step;
  }

  /** The step updates `update` makes (none for the kinds reported as events). */
  apply(update: SessionUpdate): Step[] {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return this.#chunk(
          update.sessionUpdate === "agent_message_chunk" ? "text" : "thought",
          update.content,
          update.messageId ?? undefined,
        );
      case "user_message_chunk":
        return [...this.close(), this.#userChunk(update.content)];
      case "tool_call":
        return [...this.close(), this.#tool(update.toolCallId, update)];
      case "tool_call_update":
        return [...this.close(), this.#tool(update.toolCallId, update)];
      default:
        return [];
    }
  }

  /** Marks the tool call's step waiting for the user (a `session/request_permission` is pending). */
  waiting(update: ToolCallUpdate): Step[] {
    const steps = [...this.close(), this.#tool(update.toolCallId, update)];
    const entry = this.#tools.get(update.toolCallId);
    if (entry === undefined) return steps;
    entry.step = { ...entry.step, status: StepStatus.WaitingForUser, contentDelta: "" };
    steps.push(entry.step);
    return steps;
  }

  /** The client refused the tool call's permission: its step fails (the agent may still update it). */
  refused(toolCallId: string): Step[] {
    const entry = this.#tools.get(toolCallId);
    if (entry === undefined) return [];
    entry.step = {
      ...entry.step,
      status: StepStatus.Error,
      contentDelta: "",
      error: "the client refused the permission (session/request_permission)",
    };
    return [entry.step];
  }

  /** Ends the streamed text or thought step: its final update, DONE. */
  close(): Step[] {
    const open = this.#open;
    if (open === undefined) return [];
    this.#open = undefined;
    const step = finish({ ...open.step, status: StepStatus.Done, contentDelta: "", thinkingDelta: "" });
    return [step];
  }

  /**
   * The end of a turn: the open chunk step DONE; tool calls the agent left running marked with
   * `status` (ERROR after a cancel, DONE otherwise).
   */
  endTurn(unfinishedTool: StepStatus): Step[] {
    const steps = this.close();
    for (const entry of this.#tools.values()) {
      if (entry.step.status === StepStatus.Active || entry.step.status === StepStatus.WaitingForUser) {
        entry.step = {
          ...entry.step,
          status: unfinishedTool,
          contentDelta: "",
          error: unfinishedTool === StepStatus.Done ? "" : "the turn ended before the tool call finished",
        };
        steps.push(entry.step);
      }
    }
    return steps;
  }

  #chunk(kind: "text" | "thought", block: ContentBlock, messageId: string | undefined): Step[] {
    const steps: Step[] = [];
    const open = this.#open;
    const text = blockText(block);
    if (
      open !== undefined &&
      (open.kind !== kind || (messageId !== undefined && open.messageId !== undefined && messageId !== open.messageId))
    ) {
      steps.push(...this.close());
    }
    const current = this.#open;
    const base =
      current?.step ??
      this.#newStep(kind === "text" ? StepType.TextResponse : StepType.Thinking, StepSource.Model, StepTarget.User);
    const step: Step =
      kind === "text"
        ? { ...base, status: StepStatus.Active, content: base.content + text, contentDelta: text, thinkingDelta: "" }
        : { ...base, status: StepStatus.Active, thinking: base.thinking + text, thinkingDelta: text, contentDelta: "" };
    this.#open = { kind, messageId: messageId ?? current?.messageId, step };
    steps.push(step);
    return steps;
  }

  #userChunk(block: ContentBlock): Step {
    const text = blockText(block);
    return finish({
      ...this.#newStep(StepType.TextResponse, StepSource.User, StepTarget.Unspecified),
      status: StepStatus.Done,
      content: text,
      contentDelta: text,
    });
  }

  #tool(toolCallId: string, update: AcpToolCall | ToolCallUpdate): Step {
    const known = this.#tools.get(toolCallId);
    const previous = known?.details;
    const content = update.content ?? previous?.content ?? [];
    const details: AcpToolCallDetails = {
      toolCallId,
      title: update.title ?? previous?.title ?? "",
      kind: update.kind ?? previous?.kind,
      status: update.status ?? previous?.status,
      content,
      locations: update.locations ?? previous?.locations ?? [],
      diffs: content.filter((item): item is Diff & { type: "diff" } => item.type === "diff"),
      rawInput: update.rawInput !== undefined ? update.rawInput : previous?.rawInput,
      rawOutput: update.rawOutput !== undefined ? update.rawOutput : previous?.rawOutput,
    };
    const base = known?.step ?? this.#newStep(StepType.ToolCall, StepSource.Model, StepTarget.Unspecified);
    const name = update.name ?? base.toolCalls[0]?.name ?? details.kind ?? "tool";
    const path = details.locations[0]?.path;
    const call: ToolCall = {
      id: toolCallId,
      name,
      args: details.rawInput ?? {},
      ...(path === undefined ? {} : { canonicalPath: path }),
    };
    const text = toolContentText(content);
    // A status the update leaves out stays as the step had it (waiting for the user, refused by the client).
    const status =
      update.status !== undefined && update.status !== null
        ? STATUS[update.status]
        : known !== undefined
          ? base.status
          : StepStatus.Active;
    const step = finish({
      ...base,
      status,
      toolCalls: [call],
      content: text,
      contentDelta: text.startsWith(base.content) ? text.slice(base.content.length) : text,
      error: status === StepStatus.Error ? text || details.title || "the tool call failed" : "",
    });
    this.#tools.set(toolCallId, { step, details });
    return step;
  }

  #newStep(type: StepType, source: StepSource, target: StepTarget): Step {
    const stepIndex = this.#nextIndex++;
    const trajectoryId = this.#trajectoryId;
    return newStep({
      id: `${trajectoryId}:${stepIndex}`,
      stepIndex,
      type,
      source,
      target,
      status: StepStatus.Active,
      cascadeId: trajectoryId,
      trajectoryId,
    });
  }
}

/** Sets `isCompleteResponse` the way §6.4 does: a finished MODEL→USER step with text. */
function finish(step: Step): Step {
  return {
    ...step,
    isCompleteResponse:
      step.type === StepType.TextResponse &&
      step.source === StepSource.Model &&
      step.target === StepTarget.User &&
      step.status === StepStatus.Done &&
      step.content !== "",
  };
}
