import { TaskBoard } from "../tools/tasks/task-board.js";
import type {
  PolicyDecisionResponse,
  StepUpdate,
  ToolConfirmation,
  ToolResponse,
  UserQuestionsResponse,
} from "@antigravity-ts/sdk/wire";
import { HookCaller } from "./hook-caller.js";
import type { Logger } from "../log.js";
import type { ModelProvider, ModelUsage } from "../model/provider.js";
import { PendingReplies } from "./pending-replies.js";
import type { SessionCalls } from "./budget.js";
import type { SessionSettings } from "./settings.js";
import { StepLedger, type StepHandle } from "../step-ledger.js";
import type { StoredSession } from "./stored-sessions.js";
import { storedStep } from "./stored-steps.js";
import { Transcript } from "./model-transcript.js";
import { emptyUsage, subtractUsage } from "../model/usage.js";
import { definedProperties } from "@antigravity-ts/sdk/internal";

/** Options of {@link SessionState}. */
export interface SessionStateOptions {
  cascadeId: string;
  settings: SessionSettings;
  provider: ModelProvider;
  modelName: string;
  log: Logger;
  /** The stored session being resumed. */
  stored?: StoredSession;
  /** The steps of `stored.history`, decoded (stored-steps.ts `readStoredSteps`). */
  history?: StepUpdate[];
}

/** The state of one initialised session: history, transcript, usage, budget counts and the replies it awaits. */
export class SessionState {
  readonly cascadeId: string;
  readonly settings: SessionSettings;
  readonly provider: ModelProvider;
  readonly modelName: string;
  readonly log: Logger;
  readonly ledger: StepLedger;
  readonly hooks: HookCaller;
  readonly toolResponses = new PendingReplies<ToolResponse>();
  readonly policyReplies = new PendingReplies<PolicyDecisionResponse>();
  /** Keyed `trajectoryId:stepIndex`. */
  readonly confirmations = new PendingReplies<ToolConfirmation>();
  /** The WAITING_FOR_USER steps of {@link confirmations}, by the same key: re-sent to a client that resumes (§8). */
  readonly waitingConfirmations = new Map<string, StepHandle>();
  /** Keyed `trajectoryId:stepIndex`. */
  readonly questions = new PendingReplies<UserQuestionsResponse>();
  readonly transcript: Transcript;
  /** Timers and background commands (schedule, manage_task, run_command IsDaemon); the session attaches and closes them. */
  readonly tasks = new TaskBoard();
  /** Cumulative usage of the session (§14), resumes included. */
  usage: ModelUsage;
  /** Model and tool calls of the session, resumes included (`BudgetConfig` is session-level). */
  readonly calls: SessionCalls;
  /** Counts at this connection's start, subtracted under a FORWARD_LOOKING budget; zero otherwise. */
  readonly #budgetBaseline: { calls: SessionCalls; usage: ModelUsage };
  readonly #createdAt: string;
  readonly #triggers: string[] = [];
  #policyRequests = 0;

  constructor(options: SessionStateOptions) {
    this.cascadeId = options.cascadeId;
    this.settings = options.settings;
    this.provider = options.provider;
    this.modelName = options.modelName;
    this.log = options.log;
    this.hooks = new HookCaller(options.settings.enabledHooks);
    this.ledger = new StepLedger(options.cascadeId, options.history ?? []);
    const stored = options.stored;
    this.transcript = new Transcript({
      messages: stored?.transcript ?? [],
      summaries: stored?.summaries ?? [],
      ...definedProperties({ firstPrompt: stored?.firstPrompt }),
    });
    this.usage = stored?.usage ?? emptyUsage();
    this.calls = { modelCalls: stored?.calls?.modelCalls ?? 0, toolCalls: stored?.calls?.toolCalls ?? 0 };
    this.#budgetBaseline = options.settings.budget.forwardLooking
      ? { calls: { ...this.calls }, usage: this.usage }
      : { calls: { modelCalls: 0, toolCalls: 0 }, usage: emptyUsage() };
    this.#createdAt = options.stored?.createdAt ?? new Date().toISOString();
  }

  /**
   * What `BudgetConfig` counts (protocol.md `BudgetConfig`; upstream `types.BudgetScope`): the whole
   * session, resumes included (LIFETIME, the default), or since this connection started
   * (FORWARD_LOOKING: "from when the budget was configured or the session was resumed").
   */
  budgetSpent(): { calls: SessionCalls; usage: ModelUsage } {
    const base = this.#budgetBaseline;
    return {
      calls: {
        modelCalls: this.calls.modelCalls - base.calls.modelCalls,
        toolCalls: this.calls.toolCalls - base.calls.toolCalls,
      },
      usage: subtractUsage(this.usage, base.usage),
    };
  }

  /** Key of a step awaiting a confirmation or answers. */
  stepKey(trajectoryId: string, stepIndex: number): string {
    return `${trajectoryId}:${stepIndex}`;
  }

  /** Id of the next `policyDecisionRequest`. */
  nextPolicyRequestId(): string {
    return `policy-${++this.#policyRequests}`;
  }

  /** Queues an `automatedTrigger` for the running turn (§13). */
  queueTrigger(text: string): void {
    this.#triggers.push(text);
  }

  /** Takes the queued triggers. */
  takeTriggers(): string[] {
    return this.#triggers.splice(0);
  }

  /** The session as stored on disk. */
  toStored(): StoredSession {
    const transcript = this.transcript.toData();
    return {
      version: 1,
      cascadeId: this.cascadeId,
      createdAt: this.#createdAt,
      updatedAt: new Date().toISOString(),
      history: this.ledger.history().map(storedStep),
      transcript: transcript.messages,
      summaries: transcript.summaries,
      ...definedProperties({ firstPrompt: transcript.firstPrompt }),
      usage: this.usage,
      calls: { ...this.calls },
    };
  }
}
