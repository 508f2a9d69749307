// The code blocks of README.md and docs/ (issue 26 item 8): every ts/js/tsx block, read with the
// flags of its fence's info string, type-checked against the packages a consumer installed, and
// the runnable ones run. Used by scripts/consumer-suite.mjs (the packed packages, installed once)
// and test/node/docs/code-blocks.test.ts (the flags alone).
//
// A fence is "```ts", "```js" or "```tsx", optionally followed by flags:
//   file=<path>       the block is that file of a multi-file example (docs/ai-sdk.md): the blocks
//                     of one page with file= are written side by side, so their relative imports resolve
//   no-run: <reason>  type-checked, not run; the reason (e.g. "needs GEMINI_API_KEY") is required
//   no-check: <reason> neither type-checked nor run (another runtime's code); the reason is required
// A block without no-run or no-check is run with Node and must exit 0: offline, with the bundled
// reference harness on its scripted demo model and no model keys.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The languages whose blocks are checked, by the fence's first word. */
const LANGUAGES = new Map([
  ["ts", "ts"],
  ["typescript", "ts"],
  ["js", "ts"],
  ["javascript", "ts"],
  ["tsx", "tsx"],
]);

/** How long one block may run. */
const RUN_TIMEOUT_MS = 60_000;

/** README.md and docs/*.md, without docs/contributing.md (its snippets import this repository's sources). */
export function docsFiles(root) {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md") && f !== "contributing.md")
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/**
 * Every checked block of `files`: `{ key, file, line, tsx, code, source, noRun?, noCheck?, problems }`,
 * `source` being where the block is written in a project (`<page>/<file=>` or `<page>/block-<n>.ts`),
 * `problems` what is wrong with its flags.
 */
export function docsBlocks(root, files = docsFiles(root)) {
  const blocks = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const page = file.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-");
    const fence = /^```([A-Za-z]+)([^\n]*)\n([\s\S]*?)^```\s*$/gm;
    const seenFiles = new Set();
    let n = 0;
    for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
      const lang = LANGUAGES.get(match[1]);
      if (lang === undefined) continue;
      n++;
      const block = {
        key: `${file}#${n}`,
        file,
        line: text.slice(0, match.index).split("\n").length,
        tsx: lang === "tsx",
        code: match[3],
        problems: [],
      };
      let flags = match[2].trim();
      const reasoned = /(?:^|\s)(no-run|no-check):\s*(.*)$/.exec(flags);
      if (reasoned !== null) {
        flags = flags.slice(0, reasoned.index).trim();
        if (reasoned[2].trim() === "") block.problems.push(`${reasoned[1]} needs a reason: ${reasoned[1]}: <why>`);
        block[reasoned[1] === "no-run" ? "noRun" : "noCheck"] = reasoned[2].trim();
      }
      let path = `block-${n}.${block.tsx ? "tsx" : "ts"}`;
      for (const flag of flags.split(/\s+/).filter(Boolean)) {
        const named = /^file=([\w./-]+\.tsx?)$/.exec(flag);
        if (named === null || named[1].includes("..")) {
          block.problems.push(
            `unknown flag ${JSON.stringify(flag)} (known: file=<path.ts>, no-run: <why>, no-check: <why>)`,
          );
        } else if (seenFiles.has(named[1])) {
          block.problems.push(`a second block with ${flag}`);
        } else {
          seenFiles.add(named[1]);
          path = named[1];
        }
      }
      block.source = `${page}/${path}`;
      blocks.push(block);
    }
  }
  return blocks;
}

/** Every flag problem of `blocks`, one line each (empty when the flags are right). */
export function flagProblems(blocks) {
  return blocks.flatMap((b) => b.problems.map((p) => `${b.file}:${b.line} (${b.key}): ${p}`));
}

/**
 * The bare package names the blocks import that are not this repository's packages (`ai`,
 * `react`, `@opentelemetry/api`, `vitest` ...): what a project must have beside them.
 */
export function thirdPartyImports(blocks) {
  const names = new Set();
  for (const block of blocks) {
    if (block.noCheck !== undefined) continue;
    for (const match of block.code.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const specifier = match[1];
      if (specifier.startsWith(".") || specifier.startsWith("node:") || specifier.startsWith("@antigravity-ts/"))
        continue;
      const parts = specifier.split("/");
      names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
    }
  }
  return [...names].sort();
}

/**
 * Links each third-party package the blocks import into `project`'s node_modules from the
 * repository's (its dependencies resolve from there, through the link's real path), unless the
 * project has it already: the check needs no network. Returns the names linked.
 */
export function linkThirdParty(root, project, blocks) {
  const linked = [];
  for (const name of thirdPartyImports(blocks)) {
    const target = join(project, "node_modules", name);
    if (existsSync(target)) continue;
    const source = join(root, "node_modules", name);
    if (!existsSync(source)) throw new Error(`a docs block imports ${name}, which this repository does not install`);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(source, target, "dir");
    linked.push(name);
  }
  return linked;
}

/**
 * Writes the blocks into `<project>/docs-blocks` and type-checks them with the project's
 * TypeScript and the repository's compiler options (without its source condition: the installed
 * packages as published), emitting JavaScript next to them (`dist/`). Returns `{ dir, errors }`:
 * `errors` lists every type error as `file:line (key): message`.
 */
export function compileBlocks(root, project, blocks) {
  const dir = join(project, "docs-blocks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const bySource = new Map();
  for (const block of blocks) {
    if (block.noCheck !== undefined) continue;
    const file = join(dir, block.source);
    mkdirSync(dirname(file), { recursive: true });
    // `export {}` makes every block a module: its top-level names and await are its own.
    writeFileSync(file, `${block.code}\nexport {};\n`);
    bySource.set(block.source, block);
  }
  const tsconfig = {
    extends: join(root, "tsconfig.base.json"),
    compilerOptions: {
      customConditions: [],
      lib: ["ES2023", "DOM", "DOM.Iterable", "ESNext.Disposable"],
      types: ["node"],
      jsx: "react-jsx",
      noEmit: false,
      outDir: "dist",
      rootDir: ".",
    },
    include: ["**/*.ts", "**/*.tsx"],
    exclude: ["dist"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], {
    cwd: dir,
    encoding: "utf8",
  });
  const output = `${run.stdout}${run.stderr}`;
  const errors = [];
  for (const line of output.split("\n")) {
    const match = /^(.+?\.tsx?)\((\d+),\d+\): (error .*)$/.exec(line);
    if (match === null) continue;
    const block = bySource.get(match[1]);
    errors.push(
      block === undefined ? line : `${block.file}:${block.line + Number(match[2])} (${block.key}): ${match[3]}`,
    );
  }
  if (run.status !== 0 && errors.length === 0) errors.push(`tsc -p docs-blocks failed:\n${output}`);
  return { dir, errors };
}

/**
 * Runs every block that is neither no-run nor no-check from `dir` (compileBlocks' output) with
 * Node, each in a fresh working directory, with `env` (give it no model keys), and waits for it to
 * exit, at most a minute. Whatever a block leaves running is killed with it (its process group).
 * Resolves with `{ ran, failures }`: `failures` says, per failing block, how it ended and its output.
 */
export async function runBlocks(dir, blocks, env) {
  const failures = [];
  let ran = 0;
  for (const block of blocks) {
    if (block.noRun !== undefined || block.noCheck !== undefined) continue;
    ran++;
    const script = join(dir, "dist", block.source.replace(/\.tsx?$/, ".js"));
    const cwd = mkdtempSync(join(dir, "run-"));
    const run = await runGroup(process.execPath, [script], { cwd, env });
    if (run.code !== 0) {
      const how = run.timedOut
        ? `did not exit within ${RUN_TIMEOUT_MS / 1000} s`
        : `exited with ${run.signal ?? run.code}`;
      failures.push(`${block.file}:${block.line} (${block.key}) ${how}:\n${run.output.trim()}`);
    }
  }
  return { ran, failures };
}

/** `command args` in a process group of its own, killed whole when it exits or times out. */
function runGroup(command, args, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const keep = (chunk) => {
      if (output.length < 200_000) output += chunk.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const killGroup = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, signal: null, timedOut, output: `could not start ${command}: ${error.message}` });
    });
    // What the block left running (a harness it did not stop) goes with it; then its pipes close.
    child.on("exit", killGroup);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, signal, timedOut, output });
    });
  });
}
