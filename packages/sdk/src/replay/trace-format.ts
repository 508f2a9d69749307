import { ErrorCode, SdkError } from "../errors.js";
import { NEWEST_LOCALHARNESS_ERA } from "../wire/wire-era.js";

/** The `format` of a trace's header line: what tells a trace from any other NDJSON file. */
export const TRACE_FORMAT = "antigravity-trace";
/** The trace format version this SDK writes and the newest it reads (docs/trace.schema.json). */
export const TRACE_VERSION = 1;
/** What a redacted string becomes; in a recorded client frame it matches any string on replay. */
export const REDACTED = "[REDACTED]";
/**
 * The localharness era the SDK writes unless told otherwise: the upstream release `proto/` follows
 * (wire/wire-era.ts; an agent built with `localHarness(t, { wireEra: "0.1.14" })` is recorded with `era: "0.1.14"`).
 */
export const LOCALHARNESS_ERA: string = NEWEST_LOCALHARNESS_ERA;

/** A JSON value, as a frame parses to. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The first line of a trace: what was recorded, by whom, and when. */
export interface TraceHeader {
  kind: "header";
  format: typeof TRACE_FORMAT;
  version: number;
  /** The wire the frames belong to: `"localharness"`, later `"acp"` and `"interactions"`. */
  wire: string;
  /** The wire's era (for localharness the upstream release its schema follows, e.g. `"0.1.14"`). */
  era: string;
  /** The SDK that recorded the trace. */
  sdk: { name: string; version: string };
  /** ISO 8601 time the recording started; every event's `t` counts from it. */
  recordedAt: string;
  /** Whether the default redaction rules ran, and whether the user added secrets or a hook. */
  redaction: { defaults: boolean; custom: boolean };
  /** Free-form facts the recorder's caller added (a scenario name, the harness used). */
  meta?: { [key: string]: JsonValue };
}

/** Who sent a frame, or closed a channel: the SDK side, or the harness (any wire's peer). */
export type TraceSide = "client" | "peer";

/** An error as a trace keeps it: the `SdkError` code and message. */
export interface TraceError {
  code: string;
  message: string;
}

interface EventBase {
  /** Milliseconds since the header's `recordedAt`. */
  t: number;
  /** Which `connect()` of the transport this event belongs to, from 0. */
  c: number;
}

/** The stdio handshake a spawning transport did before its channel opened (protocol §3); informational, not replayed. */
export interface TraceHandshakeEvent extends EventBase {
  kind: "handshake";
  input: { [key: string]: JsonValue };
  output: { [key: string]: JsonValue };
}

/** `connect()` resolved: the channel is open. */
export interface TraceOpenEvent extends EventBase {
  kind: "open";
}

/** `connect()` rejected. */
export interface TraceConnectErrorEvent extends EventBase {
  kind: "connectError";
  error: TraceError;
}

/** One frame in one direction: `frame` when it was JSON (every localharness frame, §4), else `text`. */
export interface TraceFrameEvent extends EventBase {
  kind: "frame";
  from: TraceSide;
  frame?: JsonValue;
  text?: string;
}

/** The channel ended: the client closed it, or the peer ended its frames (with an error when it dropped). */
export interface TraceCloseEvent extends EventBase {
  kind: "close";
  by: TraceSide;
  error?: TraceError;
}

/** Any line after the header. */
export type TraceEvent =
  | TraceHandshakeEvent
  | TraceOpenEvent
  | TraceConnectErrorEvent
  | TraceFrameEvent
  | TraceCloseEvent;

/** An event with the 1-based line of the trace it was read from (for messages that point at it). */
export type LocatedEvent = TraceEvent & { readonly line: number };

/** A parsed trace: its header, and its events grouped by connection, in order. */
export interface Trace {
  header: TraceHeader;
  /** Every event, in file order. */
  events: LocatedEvent[];
  /** `connections[c]`: the events of the c-th `connect()`. */
  connections: LocatedEvent[][];
}

const EVENT_KINDS: ReadonlySet<string> = new Set(["handshake", "open", "connectError", "frame", "close"]);

/**
 * Parses NDJSON trace text. The header must come first; a trace of a newer format version, a
 * line that is not JSON, or an event without `kind`, `t` and `c` fails with `InvalidArgument`
 * naming the line. Event kinds this version does not know are skipped (readers of version 1
 * must ignore them), as are unknown properties.
 *
 * @example
 * const trace = parseTrace(await (await fetch("/traces/chat.ndjson")).text());
 * console.log(trace.header.wire, trace.connections.length);
 */
export function parseTrace(text: string): Trace {
  const lines = text.split("\n");
  let header: TraceHeader | undefined;
  const events: LocatedEvent[] = [];
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const at = `trace line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw invalid(`${at} is not JSON (${(error as Error).message})`);
    }
    if (!isObject(value)) throw invalid(`${at} is not a JSON object`);
    if (header === undefined) {
      header = checkHeader(value, at);
      continue;
    }
    const event = checkEvent(value, at);
    if (event !== undefined) events.push({ ...event, line: i + 1 });
  }
  if (header === undefined) throw invalid(`the trace is empty: its first line must be the ${TRACE_FORMAT} header`);
  const connections: LocatedEvent[][] = [];
  for (const event of events) (connections[event.c] ??= []).push(event);
  for (let c = 0; c < connections.length; c++) connections[c] ??= [];
  return { header, events, connections };
}

/** One trace line (without its newline): the header or an event as JSON. */
export function traceLine(entry: TraceHeader | TraceEvent): string {
  return JSON.stringify(entry);
}

function checkHeader(value: Record<string, unknown>, at: string): TraceHeader {
  if (value["format"] !== TRACE_FORMAT)
    throw invalid(`${at} is not a trace header: a trace starts with {"kind":"header","format":"${TRACE_FORMAT}",...}`);
  const version = value["version"];
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
    throw invalid(`${at}: the header's version must be a positive integer`);
  if (version > TRACE_VERSION)
    throw invalid(
      `the trace is format version ${version}; this SDK reads version ${TRACE_VERSION} and older: upgrade @antigravity-ts/sdk`,
    );
  for (const key of ["wire", "era", "recordedAt"])
    if (typeof value[key] !== "string") throw invalid(`${at}: the header's ${key} must be a string`);
  return value as unknown as TraceHeader;
}

function checkEvent(value: Record<string, unknown>, at: string): TraceEvent | undefined {
  const kind = value["kind"];
  if (typeof kind !== "string") throw invalid(`${at} has no kind`);
  if (!EVENT_KINDS.has(kind)) return undefined;
  const { t, c } = value;
  if (typeof t !== "number" || typeof c !== "number" || !Number.isInteger(c) || c < 0)
    throw invalid(`${at}: an event needs a number t and a connection index c`);
  if (kind === "frame") {
    if (value["from"] !== "client" && value["from"] !== "peer")
      throw invalid(`${at}: a frame's from must be "client" or "peer"`);
    if (!("frame" in value) && typeof value["text"] !== "string")
      throw invalid(`${at}: a frame event holds frame (JSON) or text`);
  }
  if (kind === "close" && value["by"] !== "client" && value["by"] !== "peer")
    throw invalid(`${at}: a close's by must be "client" or "peer"`);
  return value as unknown as TraceEvent;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string): SdkError {
  return new SdkError(ErrorCode.InvalidArgument, message);
}
