// The consumer suite (issue 12): the packages as a user gets them. Packs the four packages once
// (scripts/pack-packages.mjs, after `npm run build`), lints the tarballs (publint --strict,
// arethetypeswrong), installs them with zod, TypeScript and @types/node into a fresh folder
// outside the repository (`npm install --prefer-offline`, so the cache `npm ci` filled serves
// it), copies in the small consumer projects of test/consumer/ and runs each check as one case:
// ESM, CommonJS, TypeScript node16 and bundler, schema-inferred tool types, argument validation
// at runtime, a browser bundle, Deno without --allow-env, the quick start through `npx antigravity`,
// and the code blocks of README.md and docs/ (type-checked, and run unless marked no-run;
// scripts/docs-blocks.mjs). Removes the folder and every process it started. Ends with `consumer-suite: N passed, N failed`; exits non-zero on any failure.
//   node scripts/consumer-suite.mjs
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { lintTarballs } from "./check-packages.mjs";
import { compileBlocks, docsBlocks, flagProblems, linkThirdParty, runBlocks } from "./docs-blocks.mjs";
import { runCommand, startListeningHarness } from "./consumer-process.mjs";
import { PACKAGES, npmCommand, packPackages, root } from "./pack-packages.mjs";

const fixtures = join(root, "test", "consumer");
const rootVersion = (pkg) => JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version;

/** The environment of every consumer process: no settings of the npm that runs us (its prefix is this repo), no model keys. */
const consumerEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) =>
      !/^(GEMINI_|OPENAI_|ANTIGRAVITY_|GOOGLE_)/.test(key) &&
      key !== "INIT_CWD" &&
      (!key.startsWith("npm_") || /^npm_config_(cache|registry|userconfig|cafile)$/.test(key)),
  ),
);
consumerEnv.NO_COLOR = "1";

const consumer = mkdtempSync(join(tmpdir(), "antigravity-consumer-"));
const results = [];
const cleanUp = () => rmSync(consumer, { recursive: true, force: true });
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

try {
  const tarballs = await check("npm pack of sdk, node, harness and cli", () => {
    const files = packPackages(consumer);
    return { value: files, detail: files.map((file) => file.slice(consumer.length + 1)).join(", ") };
  });
  if (tarballs !== undefined) {
    await check("publint --strict and arethetypeswrong (esm-only) on the tarballs", () => {
      const problems = lintTarballs(tarballs);
      if (problems.length > 0) throw new Error(problems.join("\n"));
      return { detail: `${tarballs.length} tarballs clean` };
    });
    const installed = await check("npm install of the tarballs into a fresh project", () => install(tarballs));
    if (installed) await consumerCases();
  }
} finally {
  cleanUp();
}

const failed = results.filter((r) => !r.ok).length;
console.log(`\nconsumer-suite: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

// --- the cases ------------------------------------------------------------------------------------

async function install(tarballs) {
  const [npm, ...npmArgs] = npmCommand();
  const flags = ["--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
  await expectSuccess(runCommand(npm, [...npmArgs, "init", "-y"], { cwd: consumer, env: consumerEnv }), "npm init -y");
  const extra = ["zod", "typescript", "@types/node"].map((pkg) => `${pkg}@${rootVersion(pkg)}`);
  await expectSuccess(
    runCommand(npm, [...npmArgs, "install", ...flags, ...tarballs, ...extra], {
      cwd: consumer,
      env: consumerEnv,
      timeoutMs: 120_000,
    }),
    "npm install",
  );
  cpSync(fixtures, consumer, { recursive: true });
  return { value: true, detail: `with ${extra.join(", ")}` };
}

async function consumerCases() {
  const script = join(consumer, "script.json");
  const chatEnv = { ...consumerEnv, ANTIGRAVITY_MODEL_PROVIDER: "scripted", ANTIGRAVITY_SCRIPT: script };
  const node = (file) => runCommand(process.execPath, [file], { cwd: consumer, env: chatEnv });
  const tsc = (project) =>
    runCommand(
      process.execPath,
      [join(consumer, "node_modules/typescript/bin/tsc"), "-p", project, "--pretty", "false"],
      { cwd: consumer, env: consumerEnv },
    );

  await check(
    "Package metadata: license, homepage, repository, bugs, keywords, engines, README and LICENSE in each package",
    () => metadata(),
  );
  await check(
    'ESM: import { Agent, defineTool } from "@antigravity-ts/node", a turn with a client tool on the bundled harness',
    async () => {
      const run = await expectSuccess(node("esm-chat.mjs"), "node esm-chat.mjs");
      return { detail: lastLine(run.output) };
    },
  );
  await check('CommonJS: require("@antigravity-ts/sdk") and require("@antigravity-ts/node")', async () => {
    const run = await expectSuccess(node("cjs-require.cjs"), "node cjs-require.cjs");
    return { detail: lastLine(run.output) };
  });
  await check(
    "TypeScript module node16 (lib es2022 + dom, skipLibCheck false): the node package, /wire, /testing",
    async () => {
      await expectSuccess(tsc("ts-node16/tsconfig.json"), "tsc -p ts-node16");
    },
  );
  await check(
    "TypeScript moduleResolution bundler (lib es2022 + dom, no Node types, skipLibCheck false): the core",
    async () => {
      await expectSuccess(tsc("ts-bundler/tsconfig.json"), "tsc -p ts-bundler");
    },
  );
  await check("Schema-inferred tool types: a zod schema types call's argument", async () => {
    await expectSuccess(tsc("schema-types/tsconfig.json"), "tsc -p schema-types");
  });
  await check(
    "Schema-inferred tool types: a call whose argument does not match the zod schema fails to compile",
    async () => {
      const run = await tsc("schema-types/tsconfig.wrong.json");
      if (run.code === 0)
        throw new Error(
          "tsc compiled wrong-call.mts; a call taking { town: number } for a { city: string } schema must be a type error",
        );
      const errors = run.output.split("\n").filter((line) => line.includes("error TS"));
      const why = /Property 'town' is missing in type '\{ city: string; \}'/.exec(run.output);
      if (errors.length !== 1 || !errors[0].startsWith("schema-types/wrong-call.mts(") || why === null) {
        throw new Error(
          `expected one error in wrong-call.mts saying that town is missing in { city: string }, got:\n${run.output}`,
        );
      }
      return { detail: `${errors[0].replace(/^.*error /, "")} ${why[0]}` };
    },
  );
  await check(
    "Validation at runtime: a call with invalid arguments never runs the tool, the model gets the error",
    async () => {
      const run = await expectSuccess(node("validation.mjs"), "node validation.mjs");
      return { detail: lastLine(run.output).slice(0, 160) };
    },
  );
  await check(
    "npx antigravity: the quick start of the installed cli, offline (bundled harness, scripted demo model)",
    () => quickStart(),
  );
  await check(
    "Browser bundle: Agent + WebSocketTransport with esbuild, platform browser, no node: builtins, no ws",
    () => browserBundle(),
  );
  await check("Deno without --allow-env: the installed sdk completes a turn with a listening harness", () =>
    denoChat(),
  );
  const docs = await check(
    "Docs: every ts/js/tsx block of README.md and docs/ type-checks against the installed packages",
    () => docsCompile(),
  );
  if (docs !== undefined)
    await check(
      "Docs: every block not marked no-run runs and exits 0 (offline: bundled harness, scripted demo model)",
      () => docsRun(docs),
    );
}

/** The blocks compiled into the consumer (scripts/docs-blocks.mjs says how the fences' flags decide). */
async function docsCompile() {
  const blocks = docsBlocks(root);
  const problems = flagProblems(blocks);
  if (problems.length > 0) throw new Error(problems.join("\n"));
  const linked = linkThirdParty(root, consumer, blocks);
  const { dir, errors } = compileBlocks(root, consumer, blocks);
  if (errors.length > 0) throw new Error(errors.join("\n"));
  const checked = blocks.filter((b) => b.noCheck === undefined).length;
  return {
    value: { dir, blocks },
    detail: `${checked} of ${blocks.length} blocks type-checked${linked.length > 0 ? ` (linked from the repository: ${linked.join(", ")})` : ""}`,
  };
}

async function docsRun({ dir, blocks }) {
  const env = { ...consumerEnv, ANTIGRAVITY_MODEL_PROVIDER: "scripted" };
  const { ran, failures } = await runBlocks(dir, blocks, env);
  if (failures.length > 0) throw new Error(failures.join("\n\n"));
  const marked = blocks.filter((b) => b.noRun !== undefined || b.noCheck !== undefined).length;
  return { detail: `${ran} blocks ran and exited 0; ${marked} marked no-run or no-check with their reason` };
}

async function metadata() {
  const problems = [];
  for (const name of PACKAGES) {
    const dir = join(consumer, "node_modules", "@antigravity-ts", name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const missing = ["license", "homepage", "bugs", "engines"].filter((field) => manifest[field] === undefined);
    if (
      manifest.repository?.type !== "git" ||
      typeof manifest.repository.url !== "string" ||
      manifest.repository.directory !== `packages/${name}`
    )
      missing.push("repository { type, url, directory }");
    if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) missing.push("keywords");
    missing.push(...["README.md", "LICENSE"].filter((file) => !existsSync(join(dir, file))));
    if (missing.length > 0) problems.push(`@antigravity-ts/${name} lacks ${missing.join(", ")}`);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

async function quickStart() {
  const [npm, ...npmArgs] = npmCommand();
  const run = await expectSuccess(
    runCommand(npm, [...npmArgs, "exec", "--offline", "--", "antigravity"], {
      cwd: consumer,
      env: consumerEnv,
      timeoutMs: 120_000,
    }),
    "npx antigravity",
  );
  const expected = [
    "harness: bundled reference harness",
    'get_weather({"city":"Tokyo"})',
    "policy: run_command `echo hello` → allowed",
    "tokens: this turn",
  ];
  const missing = expected.filter((text) => !run.output.includes(text));
  if (missing.length > 0)
    throw new Error(
      `the quick start's output lacks ${missing.map((text) => JSON.stringify(text)).join(", ")}:\n${run.output}`,
    );
  return { detail: lastLine(run.output) };
}

async function browserBundle() {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: consumer,
    entryPoints: ["browser/entry.js"],
    bundle: true,
    platform: "browser",
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  const nodeOnly = inputs.filter(
    (input) => input.startsWith("node:") || /node_modules\/(ws|isomorphic-ws\/node)\b/.test(input),
  );
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
  if (nodeOnly.length > 0 || imports.length > 0)
    throw new Error(`the bundle pulls Node-only code: ${[...nodeOnly, ...imports].join(", ")}`);
  if (!inputs.some((input) => input.includes("node_modules/@antigravity-ts/sdk/dist/")))
    throw new Error(`the bundle did not use the installed package: ${inputs.join(", ")}`);
  const code = result.outputFiles[0].contents;
  return {
    detail: `${(code.length / 1024).toFixed(1)} KB minified, ${(gzipSync(code).length / 1024).toFixed(1)} KB gzipped`,
  };
}

async function denoChat() {
  const keyFile = join(consumer, "harness-key.txt");
  const apiKey = `consumer-${Math.random().toString(36).slice(2)}${Date.now()}`;
  writeFileSync(keyFile, apiKey, { mode: 0o600 });
  const harnessBin = realpathSync(join(consumer, "node_modules/.bin/antigravity-harness"));
  const harness = await startListeningHarness(harnessBin, {
    cwd: consumer,
    env: {
      ...consumerEnv,
      ANTIGRAVITY_API_KEY: apiKey,
      ANTIGRAVITY_MODEL_PROVIDER: "scripted",
      ANTIGRAVITY_SCRIPT: join(consumer, "script.json"),
    },
  });
  try {
    const deno = join(root, "node_modules/deno/bin.cjs");
    const args = [
      "run",
      "--no-lock",
      "--allow-net=127.0.0.1",
      `--allow-read=${consumer}`,
      "deno/chat.ts",
      harness.url,
      keyFile,
    ];
    const run = await expectSuccess(
      runCommand(process.execPath, [deno, ...args], { cwd: consumer, env: consumerEnv }),
      "deno run --allow-net --allow-read deno/chat.ts",
    );
    const answer = lastJson(run.output);
    if (answer?.answer !== "Hello from the scripted model.") throw new Error(`unexpected answer:\n${run.output}`);
    return { detail: `Deno ${answer.deno}: ${JSON.stringify(answer.answer)}` };
  } catch (error) {
    throw new Error(`${error.message}\nharness stderr:\n${harness.stderr()}`);
  } finally {
    await harness.stop();
  }
}

// --- reporting ------------------------------------------------------------------------------------

/** Runs one case; `body` returns `{ value?, detail? }` or throws. Returns the value (undefined on failure). */
async function check(name, body) {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  try {
    const { value, detail } = (await body()) ?? {};
    results.push({ name, ok: true });
    console.log(`✓ ${name} (${seconds()}s)${detail ? `\n    ${detail}` : ""}`);
    return value ?? true;
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`✗ ${name} (${seconds()}s)\n${indent(error instanceof Error ? error.message : String(error))}`);
    return undefined;
  }
}

async function expectSuccess(running, label) {
  const run = await running;
  if (run.code !== 0)
    throw new Error(
      `${label} failed (${run.timedOut ? "timed out" : (run.signal ?? `exit ${run.code}`)}):\n${run.output}`,
    );
  return run;
}

function lastLine(text) {
  return text.trim().split("\n").at(-1) ?? "";
}

/** The last line of `text` that is a JSON object (runtimes may print warnings around it). */
function lastJson(text) {
  for (const line of text.trim().split("\n").reverse()) {
    try {
      const value = JSON.parse(line);
      if (typeof value === "object" && value !== null) return value;
    } catch {
      // not the result line
    }
  }
  return undefined;
}

function indent(text) {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
