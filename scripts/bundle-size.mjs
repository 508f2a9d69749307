// Minified and gzipped size of every entry point a browser or Worker would load, bundled from the
// built packages (run `npm run build` first). Fails when a budgeted browser bundle is over budget or
// when any browser bundle reaches `ws` or a `node:` import. Rewrites docs/bundle-size.md only when
// asked (`--write`), so `npm test` and CI check without touching the working tree.
//   node scripts/bundle-size.mjs [--write]
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleForBrowser, forbiddenReach, repoRoot } from "./bundle-for-browser.mjs";

/**
 * Budgets, gzipped, of what a page loads at start (the entry chunk and its static imports; the
 * lazily imported full frame decoder — generated schema + protobuf-es runtime, loaded only for a
 * frame the fast reader leaves undecided — is shown apart and not budgeted).
 *
 * `Agent` + `WebSocketTransport` is issue 14's measure. Before the schema-free wire plan it was
 * 74.3 KB (about 39 KB of it the schema and the runtime); with them out of the start-up graph it
 * is 46.7 KB, so the budget is 50 KB, not yet the issue's 30 KB: what remains is the SDK itself
 * (harness connection, conversation, agent, hooks, continuations, config, telemetry; see
 * docs/bundle-size.md). Everything the root exports keeps a separate, larger budget because it
 * adds modules an app pulls only when it uses them (in-memory transport, triggers, stores).
 */
const AGENT_BUDGET_GZIP = 50 * 1024;
const EVERYTHING_BUDGET_GZIP = 55 * 1024;

/** What is measured: a label, the runtime whose conditions apply, the module a user would write, its budget. */
const entries = [
  {
    label: "@antigravity-ts/sdk: Agent + WebSocketTransport only",
    runtime: "browser",
    budget: AGENT_BUDGET_GZIP,
    contents: `export { Agent, WebSocketTransport } from "@antigravity-ts/sdk";`,
  },
  { label: "@antigravity-ts/sdk (everything)", runtime: "browser", budget: EVERYTHING_BUDGET_GZIP, contents: `export * from "@antigravity-ts/sdk";` },
  { label: "@antigravity-ts/sdk/wire", runtime: "browser", contents: `export * from "@antigravity-ts/sdk/wire";` },
  { label: "@antigravity-ts/sdk/storage", runtime: "browser", contents: `export * from "@antigravity-ts/sdk/storage";` },
  { label: "@antigravity-ts/sdk/testing", runtime: "browser", contents: `export * from "@antigravity-ts/sdk/testing";` },
  { label: "@antigravity-ts/sdk (workerd conditions)", runtime: "workerd", contents: `export * from "@antigravity-ts/sdk";` },
  { label: "@antigravity-ts/node (browser: the not-node guard)", runtime: "browser", contents: `import "@antigravity-ts/node";` },
  { label: "docs/examples/browser-chat app", runtime: "browser", file: "docs/examples/browser-chat/src/main.ts" },
  { label: "docs/examples/worker", runtime: "workerd", file: "docs/examples/worker/src/index.ts" },
];

const write = process.argv.includes("--write");
const distIndex = join(repoRoot, "packages/sdk/dist/index.js");
if (!existsSync(distIndex)) {
  console.error(`bundle-size: ${distIndex} is missing; run \`npm run build\` first`);
  process.exit(1);
}

const rows = [];
const problems = [];
for (const entry of entries) {
  if (entry.file !== undefined && !existsSync(join(repoRoot, entry.file))) {
    problems.push(`${entry.label}: ${entry.file} is missing`);
    continue;
  }
  let result;
  try {
    result = await bundleForBrowser(entry.file !== undefined ? { file: entry.file } : { contents: entry.contents }, { runtime: entry.runtime });
  } catch (error) {
    problems.push(`${entry.label}: bundling failed: ${error.message}`);
    continue;
  }
  for (const offence of forbiddenReach(result)) problems.push(`${entry.label}: ${offence}`);
  const overBudget = entry.budget !== undefined && result.gzipBytes > entry.budget;
  if (overBudget) problems.push(`${entry.label}: ${kb(result.gzipBytes)} gzipped at start exceeds the ${kb(entry.budget)} budget`);
  rows.push({
    ...entry,
    minified: result.minifiedBytes,
    gzip: result.gzipBytes,
    lazy: result.lazyGzipBytes,
    status: overBudget ? "OVER BUDGET" : entry.budget !== undefined ? `≤ ${kb(entry.budget)}` : "",
  });
}

const header = ["entry point", "runtime", "minified", "gzipped", "lazy chunks, gzipped", "budget"];
const table = rows.map((r) => [r.label, r.runtime, kb(r.minified), kb(r.gzip), r.lazy === 0 ? "—" : kb(r.lazy), r.status]);
printTable(header, table);

if (write) {
  const md = [
    "# Bundle size",
    "",
    "What a browser or a Cloudflare Worker downloads for each entry point, bundled from the built",
    "packages with esbuild (`platform: \"browser\"`, minified, code-split, the runtime's export",
    "conditions) and compressed with gzip level 9, each chunk on its own. *minified* and *gzipped* are",
    "the start-up download: the entry chunk and the chunks it imports statically. *lazy chunks* load",
    "only through a dynamic `import()`: the SDK's full frame decoder (generated schema, protobuf-es",
    "`fromJson`), fetched the first time a frame is one the fast reader leaves undecided (a `null`,",
    "bytes, a number written as text, a frame that is not JSON). Frames sent are written from the",
    "schema-free wire plan (`packages/sdk/src/wire/wire-plan.gen.ts`), so a session that only sees",
    "ordinary frames never loads it.",
    "",
    `Budgets: \`Agent\` + \`WebSocketTransport\` ${kb(AGENT_BUDGET_GZIP)}, everything the root exports ${kb(EVERYTHING_BUDGET_GZIP)}`,
    "(gzipped, at start); `node scripts/bundle-size.mjs` fails the build past them; `--write` rewrites this",
    "table. Issue 14 aims at 30 KB for `Agent` + `WebSocketTransport`; what remains above it is the",
    "SDK's own code (harness connection, conversation, agent, hooks, continuations, config,",
    "telemetry). No browser bundle may contain the `ws` package or a `node:` import.",
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i >= 2 && i <= 4 ? "---:" : "---")).join(" | ")} |`,
    ...table.map((r) => `| ${r.join(" | ")} |`),
    "",
  ].join("\n");
  writeFileSync(join(repoRoot, "docs/bundle-size.md"), md);
}

if (problems.length > 0) {
  console.error(`\nbundle-size: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`\nbundle-size: every budgeted bundle within its budget at start; no browser bundle reaches ws or node:`);

function kb(bytes) {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function printTable(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ");
  console.log(line(head));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of body) console.log(line(r));
}
