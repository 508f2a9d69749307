import { REDACTED, type JsonValue } from "./trace-format.js";

/** How a replayed client frame is compared with the one the trace recorded. */
export type MatchMode = "strict" | "lenient";

/** A path into a frame: object keys and array indices. */
export type FramePath = readonly (string | number)[];

/** Where two frames first differ, and how. */
export interface FrameDifference {
  /** The path from the frame's root, as text (`toolResponse.responseJson`, `userInput.parts[0].text`); `""` for the frame itself. */
  readonly path: string;
  /** What the trace holds there (`undefined`: nothing). */
  readonly expected: JsonValue | undefined;
  /** What came there (`undefined`: nothing). */
  readonly actual: JsonValue | undefined;
  /** What is wrong, in words. */
  readonly reason: string;
}

/** What a wire's frames look like to the matcher: which keys wrap every frame, which hold ids, what changes on every run. */
export interface WireProfile {
  /** A JSON object frame's kind: what lenient matching requires to be the same. */
  readonly kindOf: (frame: { readonly [key: string]: JsonValue }) => string;
  /** Keys whose string values are ids one side generates (lenient mode maps them). */
  readonly idKey: RegExp;
  /** Paths that differ on every run (the drift check ignores them in every frame). */
  readonly volatile: readonly string[];
  /** Handshake paths that differ per run or per machine (port, storage folder, runtime versions). */
  readonly handshakeVolatile: readonly string[];
}

const ID_KEY = /(?:^id|Id|_id|ID)$/;
const LOCALHARNESS_ENVELOPE: ReadonlySet<string> = new Set([
  "seqNum",
  "timestampMicros",
  "seq_num",
  "timestamp_micros",
]);

const PROFILES: Record<string, WireProfile> = {
  // protocol §4: an OutputEvent is its oneof member plus seqNum and timestampMicros; an InputEvent
  // is its oneof member alone; the first client frame is {"config": ...} (§5).
  localharness: {
    kindOf: (frame) => Object.keys(frame).find((key) => !LOCALHARNESS_ENVELOPE.has(key)) ?? "empty",
    idKey: ID_KEY,
    volatile: ["**.timestampMicros", "**.timestamp_micros"],
    handshakeVolatile: [
      "output.port",
      "input.storageDirectory",
      "input.clientInfo.version",
      "input.clientInfo.languageVersion",
      "input.clientInfo.os",
      "input.clientInfo.osVersion",
    ],
  },
  // JSON-RPC 2.0 as ACP carries it (@agentclientprotocol/sdk 2.4, dist/core/jsonrpc.d.ts AnyMessage):
  // a request or notification is its method, a response its result or error.
  acp: {
    kindOf: jsonRpcKind,
    idKey: ID_KEY,
    volatile: [],
    handshakeVolatile: [],
  },
  // HTTP as recordingFetch writes it (http-frames.ts): a request is its method and path, a
  // response head "response", an SSE event its data's event_type (InteractionSSEEvent, genai.d.ts).
  interactions: {
    kindOf: (frame) => {
      if (typeof frame["method"] === "string" && typeof frame["path"] === "string")
        return `${frame["method"]} ${frame["path"].split("?")[0]}`;
      if (typeof frame["status"] === "number") return "response";
      const data = frame["data"];
      if (data !== null && typeof data === "object" && !Array.isArray(data) && typeof data["event_type"] === "string")
        return data["event_type"];
      return Object.keys(frame)[0] ?? "empty";
    },
    idKey: ID_KEY,
    // Interaction.created / .updated: "Output only. The time at which the response was created
    // (last updated) in ISO 8601 format" (@google/genai 3.3.0 genai.d.ts, type Interaction).
    volatile: ["data.interaction.created", "data.interaction.updated", "body.created", "body.updated"],
    handshakeVolatile: [],
  },
};

function jsonRpcKind(frame: { readonly [key: string]: JsonValue }): string {
  for (const name of ["method", "type"]) if (typeof frame[name] === "string") return frame[name] as string;
  return Object.keys(frame).find((key) => key !== "jsonrpc" && key !== "id") ?? "empty";
}

/** A wire this version does not know: a JSON-RPC style `method` (a response is `result` or `error`), a `type`, else the first key. */
const GENERIC: WireProfile = {
  kindOf: jsonRpcKind,
  idKey: ID_KEY,
  volatile: [],
  handshakeVolatile: [],
};

/** The profile of `wire`; a wire this version does not know gets a generic one (kind = `method`, `type` or the first key). */
export function wireProfile(wire: string): WireProfile {
  return PROFILES[wire] ?? GENERIC;
}

/** A frame's kind: its event member (`userInput`, `stepUpdate`, `config`), or `method`/`type` where a wire names it. */
export function frameKind(frame: JsonValue | undefined, profile: WireProfile): string {
  if (frame === null || typeof frame !== "object" || Array.isArray(frame))
    return typeof frame === "string" ? "text" : "value";
  return profile.kindOf(frame);
}

/** Compiled ignore patterns: dot-separated segments, `*` one segment, `**` any number (`**.timestampMicros`, `config.workspaces`). */
export class PathPatterns {
  readonly #patterns: readonly (readonly string[])[];

  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map((pattern) => pattern.split(".").filter((segment) => segment !== ""));
  }

  /** Whether `path` (or a path above it) is ignored. */
  matches(path: FramePath): boolean {
    return this.#patterns.some((pattern) => matchSegments(pattern, 0, path, 0));
  }
}

function matchSegments(pattern: readonly string[], p: number, path: FramePath, i: number): boolean {
  if (p === pattern.length) return true; // a pattern that names a parent covers what is under it
  if (pattern[p] === "**") {
    for (let j = i; j <= path.length; j++) if (matchSegments(pattern, p + 1, path, j)) return true;
    return false;
  }
  if (i === path.length) return false;
  return (pattern[p] === "*" || pattern[p] === String(path[i])) && matchSegments(pattern, p + 1, path, i + 1);
}

/**
 * Ids seen in a trace bound to the ids seen live: the first time a trace id meets a live one at
 * an id key they are bound, and from then on each stands for the other. The peer's later frames
 * are rewritten with the live ids (a conversation id the client generated differently, say).
 */
export class IdMap {
  readonly #toLive = new Map<string, string>();
  readonly #toTrace = new Map<string, string>();

  /** Binds `traced` to `live`; false when either is already bound to another id. */
  bind(traced: string, live: string): boolean {
    const bound = this.#toLive.get(traced);
    if (bound !== undefined) return bound === live;
    if (this.#toTrace.has(live)) return false;
    this.#toLive.set(traced, live);
    this.#toTrace.set(live, traced);
    return true;
  }

  /** The live id bound to `traced`, if any. */
  live(traced: string): string | undefined {
    return this.#toLive.get(traced);
  }

  /** `value` with every bound trace id replaced by its live id (whole strings, and within strings for ids of 8 characters or more). */
  rewrite(value: JsonValue): JsonValue {
    const changed = [...this.#toLive].filter(([traced, live]) => traced !== live && traced !== "");
    if (changed.length === 0) return value;
    const long = changed.filter(([traced]) => traced.length >= 8);
    const walk = (v: JsonValue): JsonValue => {
      if (typeof v === "string") {
        const whole = this.#toLive.get(v);
        if (whole !== undefined) return whole;
        let out = v;
        for (const [traced, live] of long) if (out.includes(traced)) out = out.split(traced).join(live);
        return out;
      }
      if (Array.isArray(v)) return v.map(walk);
      if (v === null || typeof v !== "object") return v;
      const out: { [key: string]: JsonValue } = {};
      for (const [key, item] of Object.entries(v)) out[key] = walk(item);
      return out;
    };
    return walk(value);
  }
}

/** How {@link matchFrame} compares. */
export interface MatchSettings {
  readonly mode: MatchMode;
  readonly profile: WireProfile;
  /** Lenient mode: paths left out of the comparison. */
  readonly ignore: PathPatterns;
  /** Lenient mode: the id bindings, shared by every frame of a replay. */
  readonly ids: IdMap;
}

/**
 * Compares a frame that came (`actual`) with the one the trace holds (`expected`); returns the
 * first difference, or `undefined` when they match. Strict: the same JSON value with the same
 * key order. Lenient: the same kind, ids consistent with earlier frames (bound through
 * {@link IdMap}), the rest equal in any key order except the ignored paths. In both modes a
 * recorded string holding {@link REDACTED} matches any string in its place.
 */
export function matchFrame(
  expected: JsonValue,
  actual: JsonValue,
  settings: MatchSettings,
): FrameDifference | undefined {
  if (settings.mode === "lenient") {
    const want = frameKind(expected, settings.profile);
    const got = frameKind(actual, settings.profile);
    if (want !== got) return { path: "", expected, actual, reason: `expected a ${want} frame, got ${got}` };
  }
  return compare(expected, actual, [], settings);
}

function compare(
  expected: JsonValue,
  actual: JsonValue,
  path: (string | number)[],
  settings: MatchSettings,
): FrameDifference | undefined {
  const lenient = settings.mode === "lenient";
  if (lenient && path.length > 0 && settings.ignore.matches(path)) return undefined;
  const at = (reason: string): FrameDifference => ({ path: formatPath(path), expected, actual, reason });
  if (typeof expected === "string") {
    if (typeof actual !== "string") return at(`expected a string, got ${typeOf(actual)}`);
    if (expected.includes(REDACTED))
      return redactedMatches(expected, actual) ? undefined : at("differs from the redacted value's visible part");
    const key = path.at(-1);
    // An empty string names nothing (`cascadeId: ""` asks the harness for one, §5.1): compared as is.
    if (lenient && typeof key === "string" && settings.profile.idKey.test(key) && expected !== "" && actual !== "") {
      if (settings.ids.bind(expected, actual)) return undefined;
      const bound = settings.ids.live(expected);
      return at(
        bound === undefined
          ? `id ${JSON.stringify(actual)} already stands for another id of the trace`
          : `id ${JSON.stringify(expected)} was ${JSON.stringify(bound)} earlier in this replay`,
      );
    }
    return expected === actual ? undefined : at("differs");
  }
  if (expected === null || typeof expected !== "object")
    return expected === actual
      ? undefined
      : at(typeOf(expected) === typeOf(actual) ? "differs" : `expected ${typeOf(expected)}, got ${typeOf(actual)}`);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return at(`expected an array, got ${typeOf(actual)}`);
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (i >= expected.length || i >= actual.length) {
        const child = [...path, i];
        if (lenient && settings.ignore.matches(child)) continue;
        return {
          path: formatPath(child),
          expected: expected[i],
          actual: actual[i],
          reason: i >= actual.length ? "missing" : "not in the trace",
        };
      }
      const difference = compare(expected[i] as JsonValue, actual[i] as JsonValue, [...path, i], settings);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (actual === null || typeof actual !== "object" || Array.isArray(actual))
    return at(`expected an object, got ${typeOf(actual)}`);
  for (const key of Object.keys(expected)) {
    const child = [...path, key];
    if (!(key in actual)) {
      if (lenient && settings.ignore.matches(child)) continue;
      return { path: formatPath(child), expected: expected[key], actual: undefined, reason: "missing" };
    }
    const difference = compare(expected[key] as JsonValue, actual[key] as JsonValue, child, settings);
    if (difference !== undefined) return difference;
  }
  for (const key of Object.keys(actual)) {
    const child = [...path, key];
    if (!(key in expected) && !(lenient && settings.ignore.matches(child)))
      return { path: formatPath(child), expected: undefined, actual: actual[key], reason: "not in the trace" };
  }
  if (!lenient) {
    const want = Object.keys(expected).join(",");
    const got = Object.keys(actual).join(",");
    if (want !== got) return at(`fields in another order: expected ${want}, got ${got}`);
  }
  return undefined;
}

/** Whether `actual` fits `expected` with each {@link REDACTED} standing for any text. */
function redactedMatches(expected: string, actual: string): boolean {
  const parts = expected.split(REDACTED).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`).test(actual);
}

/** `a.b[0].c`; keys that are not identifiers are quoted: `headers["x-goog-api-key"]`. */
export function formatPath(path: FramePath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function typeOf(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}
