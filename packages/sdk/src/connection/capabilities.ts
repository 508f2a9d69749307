import { HOOK_METHODS, type Hook } from "../hooks/hook.js";

/** A hook kind: the name of one method of {@link Hook}. */
export type HookKind = keyof Hook;

/**
 * What a wire can do, declared by its connection strategy before anything connects, so the agent
 * builder can refuse an option the wire cannot honour at `build()`/`start()` with a typed error
 * that names the option and the wire — never drop it silently (docs/design.md, the capability table).
 */
export interface ConnectionCapabilities {
  /** The wire's name, as errors say it: `"localharness"`, `"acp"`, `"interactions"`. */
  readonly wire: string;
  /** Client-side tools the model can call (answered by the agent's ToolRunner). */
  readonly clientTools: boolean;
  /** The hook kinds the wire runs. */
  readonly hooks: ReadonlySet<HookKind>;
  /** Policies decided by the client when the wire asks (dynamic rules, `askUser` handlers). */
  readonly dynamicPolicies: boolean;
  /** Built-in tool calls that wait for the client's confirmation (and so `deferToUser` and continuations). */
  readonly confirmations: boolean;
  /** Questions the agent asks the user (`ask_question`). */
  readonly questions: boolean;
  /** Messages injected into the conversation by triggers. */
  readonly triggers: boolean;
  /** Stopping a running turn from the client. */
  readonly halt: boolean;
  /** Resuming a conversation by id in a new session (stores, `Conversation.load`, continuations). */
  readonly resume: boolean;
  /** Re-opening a dropped connection and going on without loss. */
  readonly reconnect: boolean;
  /** Usage reported per model call (not only per turn). */
  readonly perCallUsage: boolean;
  /** Context compaction the client can configure. */
  readonly compaction: boolean;
  /** Media types a prompt may carry, as `type/subtype` patterns with `*` wildcards; empty: text only. */
  readonly media: readonly string[];
  /** Skill directories the harness reads (`skills`, `skillsPaths`). */
  readonly skills: boolean;
  /** Rules files the harness reads into the system instruction (`rules`). */
  readonly rules: boolean;
  /** A limit on the tool output the model reads (`toolOutputTruncation`). */
  readonly toolOutputTruncation: boolean;
  /** A thinking level for the models the client names (`thinkingLevel`, a model's `thinkingLevel`). */
  readonly thinkingLevel: boolean;
  /**
   * Built-in tools the client chooses and sets up: `schedule` / `manage_task`, daemon commands,
   * and the `eval()` / `lightweight()` presets, whose effects are mostly such settings.
   */
  readonly builtinTools: boolean;
  /** Auto policy mode: a safety assessment of tool calls by the harness (`auto()`, `policyConfig.autoConfig`). */
  readonly autoPolicy: boolean;
}

/** What the localharness wire (protocol.md) does: everything the SDK has. */
export const LOCALHARNESS_CAPABILITIES: ConnectionCapabilities = {
  wire: "localharness",
  clientTools: true,
  hooks: new Set(HOOK_METHODS),
  dynamicPolicies: true,
  confirmations: true,
  questions: true,
  triggers: true,
  halt: true,
  resume: true,
  reconnect: true,
  perCallUsage: true,
  compaction: true,
  media: ["*/*"], // UserInput.Media carries any mime type (§6.1)
  skills: true,
  rules: true,
  toolOutputTruncation: true,
  thinkingLevel: true,
  builtinTools: true,
  autoPolicy: true, // PolicyConfig.auto_config, localharness.proto @257f843a
};
