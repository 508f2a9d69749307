// The project's test command (`npm test`): every check and every runtime's suite, in order,
// stopping at the first failure. Ends with one plain line, `N passed, N failed`, counting the
// tests of every suite that ran (parsed from each runner's JSON report or summary).
//   node scripts/test-all.mjs [--from <section>] [--only <section,...>]
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const reports = join(root, "test-results", "reports");
const node = process.execPath;
const bin = (pkg, file) => join(root, "node_modules", pkg, file);

/** Upper bound per section, so a hung runner fails CI instead of eating its 90 minutes. */
const SECTION_TIMEOUT_MS = 20 * 60_000;

/**
 * The sections, in order. `count` turns a finished section into `{ passed, failed }` (tests),
 * or is absent for checks that are not test suites (drift, typecheck, build).
 */
const sections = [
  {
    name: "gen-drift",
    title: "Generated code is up to date (scripts/check-gen.mjs)",
    skip: () => (existsSync(join(root, "scripts/check-gen.mjs")) ? false : "scripts/check-gen.mjs not present"),
    argv: [node, "scripts/check-gen.mjs"],
  },
  {
    name: "lint",
    title: "Format and lint (Biome: scripts/biome.mjs ci .)",
    argv: [node, "scripts/biome.mjs", "ci", "."],
  },
  {
    name: "typecheck",
    title: "Typecheck (tsc -b tsconfig.json)",
    argv: [node, bin("typescript", "bin/tsc"), "-b", "tsconfig.json"],
  },
  {
    name: "build",
    title: "Build (rollup -c rollup.config.mjs)",
    argv: [node, bin("rollup", "dist/bin/rollup"), "-c", "rollup.config.mjs"],
  },
  {
    name: "bubblewrap",
    title: "bubblewrap for the run_command sandbox suite (scripts/ensure-bubblewrap.mjs)",
    argv: [node, "scripts/ensure-bubblewrap.mjs"],
  },
  vitestSection("unit", "Unit and Node end-to-end tests (vitest, sources)", "vitest.config.ts"),
  vitestSection(
    "built",
    "Node end-to-end tests against the built packages (vitest.built.config.ts)",
    "vitest.built.config.ts",
  ),
  {
    name: "bundle-size",
    title: "Bundle size (scripts/bundle-size.mjs)",
    argv: [node, "scripts/bundle-size.mjs"],
    count: (run) => (run.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }),
  },
  {
    name: "packages",
    title:
      "Packed packages in a fresh consumer project: publint, attw, ESM, CommonJS, TypeScript, schema types, browser bundle, Deno (scripts/consumer-suite.mjs)",
    argv: [node, "scripts/consumer-suite.mjs"],
    count: (run) => consumerCount(run.output),
  },
  {
    name: "deno",
    title: "Deno tests (deno test -A --no-check test/deno/)",
    argv: [node, bin("deno", "bin.cjs"), "test", "-A", "--no-check", "test/deno/"],
    env: { NO_COLOR: "1", NODE_BINARY: node },
    count: (run) => denoCount(run.output),
  },
  vitestSection(
    "workerd",
    "Cloudflare Workers tests (miniflare, vitest.workerd.config.ts)",
    "vitest.workerd.config.ts",
  ),
  {
    name: "chromium",
    title: "Chromium for the browser suite (scripts/ensure-chromium.mjs)",
    argv: [node, "scripts/ensure-chromium.mjs"],
  },
  {
    name: "browser",
    title: "Browser tests (playwright test, Chromium)",
    argv: [node, bin("@playwright/test", "cli.js"), "test", "--reporter=list,json"],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(reports, "browser.json") },
    count: () => playwrightCount(join(reports, "browser.json")),
  },
];

function vitestSection(name, title, config) {
  const outputFile = join(reports, `${name}.json`);
  return {
    name,
    title,
    argv: [
      node,
      bin("vitest", "vitest.mjs"),
      "run",
      "--config",
      config,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${outputFile}`,
    ],
    count: () => vitestCount(outputFile),
  };
}

// --- argument handling -------------------------------------------------------------------------

const args = process.argv.slice(2);
const names = sections.map((s) => s.name);
const from = option("--from");
const only = option("--only")?.split(",");
for (const n of [from, ...(only ?? [])].filter(Boolean)) {
  if (!names.includes(n)) fail(`unknown section "${n}"; sections: ${names.join(", ")}`);
}
const chosen = sections.filter((s, i) => (!from || i >= names.indexOf(from)) && (!only || only.includes(s.name)));

function option(flag) {
  const i = args.indexOf(flag);
  return i === -1 ? undefined : args[i + 1];
}

// --- run -------------------------------------------------------------------------------------------

rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const totals = { passed: 0, failed: 0 };
const timings = [];
const started = Date.now();

for (const [i, section] of chosen.entries()) {
  banner(`[${i + 1}/${chosen.length}] ${section.title}`);
  const skipped = section.skip?.();
  if (skipped) {
    console.log(`skipped: ${skipped}`);
    timings.push([section.name, "skipped"]);
    continue;
  }
  const t0 = Date.now();
  const run = await runSection(section);
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  let counts;
  try {
    counts = section.count?.(run);
  } catch (error) {
    console.error(`could not read the test counts of "${section.name}": ${error.message}`);
    if (run.code === 0) run.code = 1;
  }
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
  } else if (section.count && run.code !== 0) {
    totals.failed += 1; // a suite that died before reporting counts as one failure, never as none
  }
  const summary = counts ? ` (${counts.passed} passed, ${counts.failed} failed)` : "";
  timings.push([section.name, `${run.code === 0 ? "ok" : "FAILED"} in ${seconds}s${summary}`]);
  // A runner that exits 0 with failed tests, or non-zero with none, is a failure either way.
  if (run.code !== 0 || (counts?.failed ?? 0) > 0) {
    const why = run.timedOut
      ? `timed out after ${SECTION_TIMEOUT_MS / 60_000} min`
      : run.signal
        ? `killed by ${run.signal}`
        : `exit code ${run.code}`;
    console.error(`\n✗ section "${section.name}" failed (${why}); stopping.`);
    finish(1);
  }
}
finish(0);

function finish(code) {
  banner(`Summary (${((Date.now() - started) / 1000).toFixed(0)}s)`);
  for (const [name, status] of timings) console.log(`  ${name.padEnd(12)} ${status}`);
  console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
  process.exit(code);
}

function banner(text) {
  console.log(`\n${"=".repeat(100)}\n== ${text}\n${"=".repeat(100)}`);
}

function fail(message) {
  console.error(`test-all: ${message}`);
  process.exit(2);
}

/** Runs one section in its own process group, echoing output and keeping it for summary parsing. */
function runSection(section) {
  return new Promise((resolve) => {
    const [cmd, ...rest] = section.argv;
    const child = spawn(cmd, rest, {
      cwd: root,
      env: { ...process.env, ...section.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    const keep = (chunk, stream) => {
      stream.write(chunk);
      output += chunk.toString();
      if (output.length > 2_000_000) output = output.slice(-1_000_000);
    };
    child.stdout.on("data", (c) => keep(c, process.stdout));
    child.stderr.on("data", (c) => keep(c, process.stderr));
    let timedOut = false;
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), 5_000).unref();
    }, SECTION_TIMEOUT_MS);
    // Ctrl-C or CI cancellation: take the section's whole process tree down with us.
    const onSignal = (signal) => {
      killGroup("SIGTERM");
      process.exit(130);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    child.on("error", (error) => {
      output += String(error);
      console.error(`could not start ${cmd}: ${error.message}`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      // Whatever the runner left behind in its group (a stray harness) goes too.
      killGroup("SIGKILL");
      resolve({ code: code ?? 1, signal, timedOut, output });
    });
  });
}

// --- report parsing ----------------------------------------------------------------------------

function vitestCount(file) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  if (report.numTotalTests === 0) throw new Error(`${file} reports no tests at all`);
  // Failed suites (a file that does not load) count as failures too.
  const brokenFiles = (report.testResults ?? []).filter(
    (r) => r.status === "failed" && (r.assertionResults ?? []).length === 0,
  ).length;
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenFiles };
}

function playwrightCount(file) {
  const { stats } = JSON.parse(readFileSync(file, "utf8"));
  const failed = stats.unexpected + stats.flaky;
  if (stats.expected + failed === 0) throw new Error(`${file} reports no tests at all`);
  return { passed: stats.expected, failed };
}

function consumerCount(output) {
  // scripts/consumer-suite.mjs ends with "consumer-suite: 9 passed, 1 failed".
  const match = [...output.matchAll(/^consumer-suite: (\d+) passed, (\d+) failed$/gm)].at(-1);
  if (!match) throw new Error("no consumer-suite summary line in the output");
  return { passed: Number(match[1]), failed: Number(match[2]) };
}

function denoCount(output) {
  // Deno's final line: "ok | 3 passed (2 steps) | 0 failed (1s)" or "FAILED | 2 passed | 1 failed (1s)".
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const match = [...plain.matchAll(/^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/gm)].at(-1);
  if (!match) throw new Error("no deno test summary line in the output");
  const passed = Number(match[1]);
  const failed = Number(match[2]);
  if (passed + failed === 0) throw new Error("deno ran no tests");
  return { passed, failed };
}
