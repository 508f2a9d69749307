import { ErrorCode, SdkError } from "../errors.js";
import type { HarnessConfigOptions } from "./harness-config.js";

const CONTINUATION_MODES = ["resume", "createOrResume", "createOnly"];
const BEHAVIORS = ["autonomous", "interactive", "minimal"];
const BUDGET_LIMITS = ["maxModelCalls", "maxToolCalls", "maxInputTokens", "maxOutputTokens", "maxTotalTokens"] as const;

/**
 * Throws `InvalidArgument` saying what to pass when an option does not have the type its
 * declaration promises — the checks JavaScript callers need, whom no compiler stops (issue 10
 * item 13). Values of the right type are checked further where they are used.
 */
export function assertOptionTypes(options: HarnessConfigOptions): void {
  if (typeof options !== "object" || options === null)
    fail(`the agent options must be an object, got ${kind(options)}`);
  for (const key of ["model", "apiKey", "conversationId"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "string")
      fail(`${key} must be a string, got ${kind(options[key])}`);
  }
  oneOf("sessionContinuationMode", options.sessionContinuationMode, CONTINUATION_MODES);
  oneOf("agentBehavior", options.agentBehavior, BEHAVIORS);
  for (const key of ["skillsPaths"] as const) {
    const value: unknown = options[key];
    if (value !== undefined && (!Array.isArray(value) || value.some((item) => typeof item !== "string")))
      fail(`${key} must be an array of strings`);
  }
  for (const key of ["models", "mcpServers"] as const) {
    if (options[key] !== undefined && !Array.isArray(options[key]))
      fail(`${key} must be an array, got ${kind(options[key])}`);
  }
  systemInstructions(options.systemInstructions);
  const capabilities: unknown = options.capabilities;
  if (capabilities !== undefined) {
    if (!isObject(capabilities)) fail(`capabilities must be an object, got ${kind(capabilities)}`);
    for (const key of ["enabledTools", "disabledTools"]) {
      if (capabilities[key] !== undefined && !Array.isArray(capabilities[key]))
        fail(`capabilities.${key} must be an array of built-in tool names, got ${kind(capabilities[key])}`);
    }
  }
  const budget: unknown = options.budget;
  if (budget !== undefined) {
    if (!isObject(budget)) fail(`budget must be an object, got ${kind(budget)}`);
    for (const key of BUDGET_LIMITS) {
      const limit = budget[key];
      if (limit !== undefined && (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0))
        fail(`budget.${key} must be an integer >= 0, got ${kind(limit)}`);
    }
  }
}

function systemInstructions(value: unknown): void {
  if (value === undefined || typeof value === "string") return;
  const help =
    "systemInstructions must be a string, { custom: string } or { identity?: string, sections: [{ title, content }] }";
  if (!isObject(value)) fail(`${help}, got ${kind(value)}`);
  if ("custom" in value) {
    if (typeof value["custom"] !== "string") fail(`${help}: custom is ${kind(value["custom"])}`);
    return;
  }
  if (value["identity"] !== undefined && typeof value["identity"] !== "string")
    fail(`${help}: identity is ${kind(value["identity"])}`);
  const sections = value["sections"];
  if (
    !Array.isArray(sections) ||
    sections.some((s: unknown) => !isObject(s) || typeof s["title"] !== "string" || typeof s["content"] !== "string")
  )
    fail(help);
}

function oneOf(name: string, value: unknown, allowed: readonly string[]): void {
  if (value !== undefined && (typeof value !== "string" || !allowed.includes(value)))
    fail(`${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, got ${kind(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "number" || typeof value === "boolean" ? `${typeof value} ${String(value)}` : typeof value;
}

function fail(message: string): never {
  throw new SdkError(ErrorCode.InvalidArgument, message);
}
