// `npm run traces:check`: re-records every golden trace against the reference harness and fails
// with the differences when what goes over the wire changed (the SDK's frames or the harness's).
// `npm run traces:update`: writes the recordings that changed (all of them with --force), on purpose.
//   node --conditions=antigravity-source --import tsx test/traces/traces-cli.ts check|update [--force] [scenario...]
import { relative } from "node:path";
import { REPO_ROOT } from "@antigravity-ts/test-kit";
import { checkDrift, writeTraces } from "./record.js";
import { checkWireDrift } from "./record-wires.js";
import { SCENARIOS, WIRE_SCENARIOS } from "./scenarios.js";

const [command, ...rest] = process.argv.slice(2);
const force = rest.includes("--force");
const names = rest.filter((arg) => !arg.startsWith("--"));
const known = [...SCENARIOS, ...WIRE_SCENARIOS].map((s) => s.name);
const unknown = names.filter((name) => !known.includes(name));
if ((command !== "check" && command !== "update") || unknown.length > 0) {
  console.error(
    `usage: traces-cli.ts check|update [--force] [${known.join("|")} ...]${unknown.length > 0 ? `\nunknown scenario(s): ${unknown.join(", ")}` : ""}`,
  );
  process.exit(2);
}
const chosen = <S extends { name: string }>(all: readonly S[]): S[] =>
  names.length === 0 ? [...all] : all.filter((s) => names.includes(s.name));
const reports = [...(await checkDrift(chosen(SCENARIOS))), ...(await checkWireDrift(chosen(WIRE_SCENARIOS)))];
const shown = (path: string): string => relative(REPO_ROOT, path);

if (command === "update") {
  const written = await writeTraces(reports, force);
  for (const report of reports) {
    const why = report.missing
      ? "new"
      : report.diff !== ""
        ? `drifted:\n${report.diff}`
        : force
          ? "re-recorded (--force)"
          : "unchanged";
    console.log(`${report.scenario.name}: ${why}`);
  }
  console.log(
    written.length === 0 ? "traces:update: nothing to write" : `traces:update: wrote ${written.map(shown).join(", ")}`,
  );
} else {
  let drifted = 0;
  for (const report of reports) {
    if (report.missing) console.log(`✗ ${report.scenario.name}: no stored trace; run npm run traces:update`);
    else if (report.diff !== "")
      console.log(`✗ ${report.scenario.name}: what goes over the wire changed:\n${report.diff}`);
    else console.log(`✓ ${report.scenario.name}`);
    if (report.missing || report.diff !== "") drifted++;
  }
  if (drifted > 0) {
    console.log(
      `\ntraces:check: ${drifted} of ${reports.length} golden trace(s) drifted. If the change is intended, run npm run traces:update and commit the traces.`,
    );
    process.exit(1);
  }
  console.log(`traces:check: ${reports.length} golden trace(s) unchanged`);
}
