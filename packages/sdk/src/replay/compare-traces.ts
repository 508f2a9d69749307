import {
  IdMap,
  PathPatterns,
  frameKind,
  matchFrame,
  wireProfile,
  type FrameDifference,
  type MatchSettings,
} from "./frame-match.js";
import {
  parseTrace,
  type JsonValue,
  type LocatedEvent,
  type Trace,
  type TraceFrameEvent,
  type TraceSide,
} from "./trace-format.js";

/** Options of {@link compareTraces}. */
export interface CompareTracesOptions {
  /** More paths to leave out of every frame, beyond the wire's volatile ones (`**.timestampMicros`). */
  ignore?: readonly string[];
  /** Differences reported per connection and direction before the rest are counted. Default 3. */
  perDirection?: number;
}

/** One way two traces differ, in words, with the lines of both. */
export interface TraceDifference {
  readonly message: string;
  /** Line in the stored (expected) trace, when the difference has one. */
  readonly storedLine?: number;
  /** Line in the fresh (actual) trace. */
  readonly freshLine?: number;
}

/**
 * What goes over the wire differently in `fresh` than in `stored` (the drift check, docs/testing.md):
 * the header's wire and era, the connections, each handshake, the client's frames and the
 * peer's frames (each direction in order), and how each channel closed. Frames are compared as
 * lenient replay compares them: same kind, ids mapped (a random conversation id is not drift),
 * any key order, without the wire's volatile paths (timestamps; the handshake's port, folders and
 * runtime versions). Time offsets are not compared. Empty: no drift.
 *
 * @example
 * const drift = compareTraces(await readFile("golden.ndjson", "utf8"), sink.text());
 * if (drift.length > 0) throw new Error(drift.map((d) => d.message).join("\n"));
 */
export function compareTraces(
  stored: string | Trace,
  fresh: string | Trace,
  options: CompareTracesOptions = {},
): TraceDifference[] {
  const before = typeof stored === "string" ? parseTrace(stored) : stored;
  const after = typeof fresh === "string" ? parseTrace(fresh) : fresh;
  const differences: TraceDifference[] = [];
  for (const key of ["wire", "era"] as const) {
    if (before.header[key] !== after.header[key])
      differences.push({
        message: `the header's ${key} was ${JSON.stringify(before.header[key])}, now ${JSON.stringify(after.header[key])}`,
        storedLine: 1,
        freshLine: 1,
      });
  }
  if (differences.length > 0) return differences; // another wire or era: frame by frame would say nothing useful
  const profile = wireProfile(before.header.wire);
  const settings: MatchSettings = {
    mode: "lenient",
    profile,
    ignore: new PathPatterns([...profile.volatile, ...(options.ignore ?? [])]),
    ids: new IdMap(),
  };
  const handshakeSettings: MatchSettings = {
    ...settings,
    ignore: new PathPatterns([...profile.handshakeVolatile, ...(options.ignore ?? [])]),
  };
  const limit = options.perDirection ?? 3;
  const count = Math.max(before.connections.length, after.connections.length);
  if (before.connections.length !== after.connections.length) {
    differences.push({
      message: `the stored trace has ${before.connections.length} connection(s), the fresh one ${after.connections.length}`,
    });
  }
  for (let c = 0; c < count; c++) {
    const a = before.connections[c] ?? [];
    const b = after.connections[c] ?? [];
    if (a.length === 0 || b.length === 0) continue;
    differences.push(...compareConnection(c, a, b, settings, handshakeSettings, limit));
  }
  return differences;
}

/** The differences as one readable block, each with its lines (what `npm run traces:check` prints). */
export function formatTraceDifferences(differences: readonly TraceDifference[]): string {
  return differences
    .map((d) => {
      const lines = [
        d.storedLine === undefined ? "" : `stored line ${d.storedLine}`,
        d.freshLine === undefined ? "" : `fresh line ${d.freshLine}`,
      ]
        .filter((s) => s !== "")
        .join(", ");
      return `- ${d.message}${lines === "" ? "" : ` (${lines})`}`;
    })
    .join("\n");
}

function compareConnection(
  c: number,
  a: readonly LocatedEvent[],
  b: readonly LocatedEvent[],
  settings: MatchSettings,
  handshakeSettings: MatchSettings,
  limit: number,
): TraceDifference[] {
  const out: TraceDifference[] = [];
  const single = (kind: string): [LocatedEvent | undefined, LocatedEvent | undefined] => [
    a.find((e) => e.kind === kind),
    b.find((e) => e.kind === kind),
  ];
  const [refusedA, refusedB] = single("connectError");
  if (
    (refusedA === undefined) !== (refusedB === undefined) ||
    (refusedA?.kind === "connectError" &&
      refusedB?.kind === "connectError" &&
      refusedA.error.code !== refusedB.error.code)
  ) {
    out.push({
      message: `connection ${c}: connect() ${outcome(refusedA)} in the stored trace, ${outcome(refusedB)} now`,
      ...lines(refusedA, refusedB),
    });
  }
  const [shakeA, shakeB] = single("handshake");
  if ((shakeA === undefined) !== (shakeB === undefined)) {
    out.push({
      message: `connection ${c}: the stored trace ${shakeA === undefined ? "has no" : "has a"} handshake, the fresh one ${shakeB === undefined ? "none" : "one"}`,
      ...lines(shakeA, shakeB),
    });
  } else if (shakeA?.kind === "handshake" && shakeB?.kind === "handshake") {
    const difference = matchFrame(
      { input: shakeA.input, output: shakeA.output },
      { input: shakeB.input, output: shakeB.output },
      handshakeSettings,
    );
    if (difference !== undefined)
      out.push({ message: `connection ${c}, handshake: ${describe(difference)}`, ...lines(shakeA, shakeB) });
  }
  // Both directions in the stored trace's order, so ids are bound where they first appear.
  const framesOf = (events: readonly LocatedEvent[], from: TraceSide): (LocatedEvent & TraceFrameEvent)[] =>
    events.filter((e): e is LocatedEvent & TraceFrameEvent => e.kind === "frame" && e.from === from);
  const sides = {
    client: [framesOf(a, "client"), framesOf(b, "client")],
    peer: [framesOf(a, "peer"), framesOf(b, "peer")],
  } as const;
  const seen = { client: 0, peer: 0 };
  const reported = { client: 0, peer: 0 };
  for (const event of a) {
    if (event.kind !== "frame") continue;
    const side = event.from;
    const index = seen[side]++;
    const other = sides[side][1][index];
    if (other === undefined || reported[side] >= limit) continue;
    const difference = compareFrames(event, other, settings);
    if (difference === undefined) continue;
    reported[side]++;
    const kind = event.frame !== undefined ? frameKind(event.frame, settings.profile) : "text";
    out.push({
      message: `connection ${c}, ${side} frame ${index + 1} (${kind}): ${describe(difference)}`,
      storedLine: event.line,
      freshLine: other.line,
    });
  }
  for (const side of ["client", "peer"] as const) {
    const [stored, fresh] = sides[side];
    if (stored.length === fresh.length) continue;
    const extra = stored.length > fresh.length ? stored[fresh.length] : fresh[stored.length];
    const where = stored.length > fresh.length ? "the first one missing now" : "the first new one";
    const kind = extra?.frame !== undefined ? frameKind(extra.frame, settings.profile) : "text";
    const message = `connection ${c}: ${stored.length} ${side} frame(s) stored, ${fresh.length} now; ${where} is a ${kind} frame`;
    out.push({ message, ...(stored.length > fresh.length ? lines(extra, undefined) : lines(undefined, extra)) });
  }
  const [closeA, closeB] = [a.find((e) => e.kind === "close"), b.find((e) => e.kind === "close")];
  if (
    closeA?.kind === "close" &&
    closeB?.kind === "close" &&
    (closeA.by !== closeB.by || closeA.error?.code !== closeB.error?.code)
  ) {
    out.push({
      message: `connection ${c}: closed by the ${closeA.by}${closeA.error ? ` (${closeA.error.code})` : ""} in the stored trace, by the ${closeB.by}${closeB.error ? ` (${closeB.error.code})` : ""} now`,
      storedLine: closeA.line,
      freshLine: closeB.line,
    });
  }
  return out;
}

function compareFrames(
  stored: TraceFrameEvent,
  fresh: TraceFrameEvent,
  settings: MatchSettings,
): FrameDifference | undefined {
  if (stored.frame !== undefined && fresh.frame !== undefined) return matchFrame(stored.frame, fresh.frame, settings);
  const before: JsonValue = stored.frame ?? stored.text ?? "";
  const after: JsonValue = fresh.frame ?? fresh.text ?? "";
  return JSON.stringify(before) === JSON.stringify(after)
    ? undefined
    : { path: "", expected: before, actual: after, reason: "differs" };
}

function describe(difference: FrameDifference): string {
  const where = difference.path === "" ? "the frame" : `at ${difference.path}`;
  return `${where} ${difference.reason}: stored ${show(difference.expected)}, now ${show(difference.actual)}`;
}

function show(value: JsonValue | undefined): string {
  if (value === undefined) return "(nothing)";
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function outcome(event: LocatedEvent | undefined): string {
  return event?.kind === "connectError" ? `failed (${event.error.code})` : "succeeded";
}

function lines(a: LocatedEvent | undefined, b: LocatedEvent | undefined): { storedLine?: number; freshLine?: number } {
  return { ...(a === undefined ? {} : { storedLine: a.line }), ...(b === undefined ? {} : { freshLine: b.line }) };
}
