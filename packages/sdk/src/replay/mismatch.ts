import { ErrorCode, SdkError } from "../errors.js";
import { frameKind, type FrameDifference, type MatchSettings, type WireProfile } from "./frame-match.js";
import type { JsonValue, LocatedEvent, TraceFrameEvent } from "./trace-format.js";

/** Where in a trace a replayed client frame belongs. */
export interface ReplayPlace {
  /** 1-based line of the trace. */
  readonly line: number;
  readonly connection: number;
  /** 1-based index among the connection's client frames, and their count. */
  readonly index: number;
  readonly count: number;
  /** The event's time offset, ms. */
  readonly t: number;
}

/** Longest frame shown whole in a message; longer ones are cut in the middle. */
const SHOWN_CHARS = 600;

/** "a toolResponse frame", "the client closing the channel": an event in words. */
export function describeEvent(event: LocatedEvent, profile: WireProfile): string {
  switch (event.kind) {
    case "frame":
      return `a ${event.frame !== undefined ? frameKind(event.frame, profile) : "text"} frame from the ${event.from}`;
    case "close":
      return event.by === "client" ? "the client closing the channel" : "the peer closing the channel";
    default:
      return `a ${event.kind} event`;
  }
}

/**
 * The error of a client frame that differs from the trace: where (trace line, connection,
 * frame number, path), what was expected and what came, then both frames whole.
 */
export function mismatchError(
  place: ReplayPlace,
  event: TraceFrameEvent,
  sent: string,
  difference: FrameDifference,
  settings: MatchSettings,
): SdkError {
  const kind = event.frame !== undefined ? frameKind(event.frame, settings.profile) : "text";
  const where = difference.path === "" ? "the frame" : difference.path;
  const expected = event.frame !== undefined ? JSON.stringify(event.frame) : (event.text ?? "");
  const message = [
    `replay mismatch (${settings.mode}) at trace line ${place.line} (connection ${place.connection}, client frame ${place.index} of ${place.count}, ${kind}, t=${place.t} ms):`,
    `  at ${where}: ${difference.reason}`,
    `    expected: ${show(difference.expected)}`,
    `    got:      ${show(difference.actual)}`,
    `  the trace's frame: ${cut(expected)}`,
    `  the client sent:   ${cut(sent)}`,
  ].join("\n");
  return new SdkError(ErrorCode.ProtocolError, message, {
    details: {
      replay: {
        ...place,
        kind,
        path: difference.path,
        expected: difference.expected ?? null,
        actual: difference.actual ?? null,
        frame: sent,
      },
    },
  });
}

function show(value: JsonValue | undefined): string {
  return value === undefined ? "(nothing)" : cut(JSON.stringify(value));
}

function cut(text: string): string {
  if (text.length <= SHOWN_CHARS) return text;
  const half = SHOWN_CHARS / 2;
  return `${text.slice(0, half)} …(${text.length - SHOWN_CHARS} characters)… ${text.slice(-half)}`;
}
