// The two eras of the localharness JSON wire (docs/upstream-differences.md "wire eras").
// `proto/` is the newest era's schema: upstream localharness.proto @257f843a (0.1.15–0.1.19;
// Stars1233/antigravity-sdk-python google/antigravity/proto/localharness.proto). The 0.1.14 era
// (lovicho/antigravity-sdk-python, proto @774cb8d) spells three things differently:
//   - CompactionConfig: one field, `checkpoint_interval_tokens = 1`, which upstream 0.1.14's
//     LocalConnectionStrategy filled from `compaction_threshold`; 0.1.19's
//     `to_proto_compaction_config` (connections/local/local_connection.py @8249a379) fills the
//     renamed field 1, `token_threshold`, from the same dial, and adds fields 2 and 3.
//   - PreToolResult: `string modified_arguments_json = 3` became `.genai.Struct modified_args = 4`.
//   - CustomSystemInstructions.SystemInstructionTemplate{template_name} became the top-level
//     SystemInstructionTemplate{name}.
// Python's json_format.Parse raises on an unknown field name (protocol §4.1), so a field the
// target era does not know is never written to it: the writers refuse it with `Unsupported`,
// naming the option's wire field and the era; the readers accept both spellings. Both are in
// wire-era-spelling.ts, which a connection loads only when it writes the 0.1.14 era (the
// start-up bundle holds only the names below).

/** The localharness wire eras this SDK reads and writes: the upstream release whose schema each follows. */
export const LOCALHARNESS_ERAS = ["0.1.19", "0.1.14"] as const;
/** One of {@link LOCALHARNESS_ERAS}. */
export type LocalharnessEra = (typeof LOCALHARNESS_ERAS)[number];
/** The era `proto/` follows and the default of every writer. */
export const NEWEST_LOCALHARNESS_ERA: LocalharnessEra = "0.1.19";

/** True for a known era name. */
export function isLocalharnessEra(value: unknown): value is LocalharnessEra {
  return typeof value === "string" && (LOCALHARNESS_ERAS as readonly string[]).includes(value);
}

/**
 * The era of a client that names its SDK release in the handshake's `ClientInfo` (§3): Google's
 * Python SDK sends `language: "python"` and its package version, and its harness ships in the
 * same wheel, so a Python client before 0.1.15 speaks 0.1.14. Other clients (this SDK sends its
 * own version) say nothing about the era: `undefined`.
 */
export function eraOfClientInfo(
  info: { language?: string | undefined; version?: string | undefined } | undefined,
): LocalharnessEra | undefined {
  if (info?.language !== "python" || info.version === undefined) return undefined;
  const match = /^0\.1\.(\d+)(?:\D|$)/.exec(info.version);
  if (match === null) return /^0\.0\./.test(info.version) ? "0.1.14" : undefined;
  return Number(match[1]) <= 14 ? "0.1.14" : "0.1.19";
}
