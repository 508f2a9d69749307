import {
  decodeInputEventFrameFully,
  HarnessConfig_SessionContinuationMode,
  tryDecodeInputEventFrame,
} from "@antigravity-ts/sdk/internal";
import type { InitializeConversationEvent, InputEvent } from "@antigravity-ts/sdk/wire";
import { normalizeLegacyInputFrame } from "./read-user-input.js";

/**
 * Decodes a session's `InputEvent` frames and hands them on in the order they came: frames that
 * come after one the full decoder is loading for (frame-codec: a frame the fast reader leaves
 * undecided) wait, and are handled in order once it is decoded.
 */
export class InputFrameOrder {
  readonly #dispatch: (frame: string, decoded: unknown) => void;
  readonly #guard: (action: () => void) => void;
  /** Frames behind one the full decoder is loading for; undefined when none waits. */
  #behindSlowFrame: string[] | undefined;

  /**
   * @param dispatch acts on one frame's decoded InputEvent, or reports the decoding error it gets instead.
   * @param guard runs a callback that comes later (after the decoder loaded) on behalf of the session.
   */
  constructor(dispatch: (frame: string, decoded: unknown) => void, guard: (action: () => void) => void) {
    this.#dispatch = dispatch;
    this.#guard = guard;
  }

  handle(frame: string): void {
    if (this.#behindSlowFrame !== undefined) {
      this.#behindSlowFrame.push(frame);
      return;
    }
    const normalized = normalizeLegacyInputFrame(frame);
    const decoded = tryDecodeInputEventFrame(normalized);
    if (decoded !== undefined) return this.#dispatch(frame, decoded);
    const waiting: string[] = (this.#behindSlowFrame = []);
    void decodeInputEventFrameFully(normalized)
      .then(
        (event) => this.#guard(() => this.#dispatch(frame, event)),
        (error: unknown) => this.#guard(() => this.#dispatch(frame, error)),
      )
      .finally(() => {
        this.#behindSlowFrame = undefined;
        for (const next of waiting) this.#guard(() => this.handle(next));
      });
  }
}

/** The cascade id a first frame asks to resume (any continuation mode but CREATE_ONLY), if it names one. */
export function resumedCascadeId(init: InitializeConversationEvent | undefined): string | undefined {
  const config = init?.config;
  if (config?.sessionContinuationMode === HarnessConfig_SessionContinuationMode.CREATE_ONLY) return undefined;
  return config?.cascadeId === "" ? undefined : config?.cascadeId;
}

export function isInputEvent(value: unknown): value is InputEvent {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { $typeName?: unknown }).$typeName === "antigravity.localharness.InputEvent"
  );
}

/** The top-level keys of a frame that carries no known InputEvent, for the error step that says so. */
export function describeKeys(frame: string): string {
  try {
    const json: unknown = JSON.parse(frame);
    return typeof json === "object" && json !== null ? Object.keys(json).join(", ") || "none" : typeof json;
  } catch {
    return "not JSON";
  }
}
