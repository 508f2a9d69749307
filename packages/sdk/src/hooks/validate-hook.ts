import { ErrorCode, SdkError } from "../errors.js";
import { HOOK_METHODS, type Hook } from "./hook.js";

/**
 * Throws `InvalidArgument` unless `hook` is an object whose hook methods are functions — for
 * JavaScript callers, whom no compiler stops. Without it a misspelt value (`preToolCall: true`)
 * would be skipped silently and the guard it was meant to be would never run.
 */
export function validateHook(hook: unknown): asserts hook is Hook {
  if (typeof hook !== "object" || hook === null || Array.isArray(hook)) {
    throw new SdkError(
      ErrorCode.InvalidArgument,
      `a hook must be an object with methods such as preToolCall(call) or postTurn(text), got ${hook === null ? "null" : Array.isArray(hook) ? "an array" : typeof hook}`,
    );
  }
  for (const method of HOOK_METHODS) {
    const value = (hook as Record<string, unknown>)[method];
    if (value !== undefined && typeof value !== "function") {
      throw new SdkError(
        ErrorCode.InvalidArgument,
        `hook method ${method} must be a function, got ${value === null ? "null" : typeof value}`,
      );
    }
  }
}
