import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "@antigravity-ts/test-kit";

// Issue 26 item 8: every ts/js block of README.md and docs/*.md is type-checked as a module of
// its own (strict, the repo's compiler options, the packages' "antigravity-source" condition).
// A block that only works once names it assumes are supplied is listed in INCOMPLETE with what
// it lacks; the test fails when a block outside the list does not compile, and when a listed
// block compiles now (take it off the list), so the list can only shrink.

/** Blocks known not to compile on their own yet (file#n → why); fixing one means deleting its line. */
const INCOMPLETE: Readonly<Record<string, string>> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "incomplete-blocks.json"), "utf8"),
);

interface Block {
  key: string;
  /** The fence's language: `tsx` blocks compile as TSX (react-jsx). */
  tsx: boolean;
  file: string;
  line: number;
  code: string;
}

function blocksOf(file: string): Block[] {
  const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
  const blocks: Block[] = [];
  const fence = /^```(ts|typescript|js|javascript|tsx)\s*\n([\s\S]*?)^```\s*$/gm;
  let n = 0;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    n++;
    const line = text.slice(0, match.index).split("\n").length;
    blocks.push({ key: `${file}#${n}`, tsx: match[1] === "tsx", file, line, code: match[2] ?? "" });
  }
  return blocks;
}

// docs/contributing.md is for working on this repository: its snippets import the sources relatively.
const files = [
  "README.md",
  ...readdirSync(path.join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md") && f !== "contributing.md")
    .map((f) => `docs/${f}`),
];
const blocks = files.flatMap(blocksOf);
// Inside the repository, so the packages resolve through its node_modules.
const scratch = path.join(REPO_ROOT, "node_modules", ".cache", `docs-blocks-${process.pid}`);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Type errors of every block, by key: one `tsc -p` run (TypeScript 7 has no compiler API in JS), each block a module. */
function diagnose(): Map<string, string[]> {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
  const fileOf = new Map<string, Block>();
  for (const [i, block] of blocks.entries()) {
    const name = `block-${i}.${block.tsx ? "tsx" : "ts"}`;
    // `export {}` makes every block a module: top-level names and await are the block's own.
    writeFileSync(path.join(scratch, name), `${block.code}\nexport {};\n`);
    fileOf.set(name, block);
  }
  const tsconfig = {
    extends: path.join(REPO_ROOT, "tsconfig.base.json"),
    compilerOptions: {
      lib: ["ES2023", "DOM", "DOM.Iterable", "ESNext.Disposable"],
      types: ["node"],
      jsx: "react-jsx",
      noEmit: true,
      composite: false,
    },
    include: ["*.ts", "*.tsx"],
  };
  writeFileSync(path.join(scratch, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", scratch, "--pretty", "false"], {
    encoding: "utf8",
    cwd: scratch,
  });
  const errors = new Map<string, string[]>();
  for (const line of `${run.stdout}${run.stderr}`.split("\n")) {
    const match = /(block-\d+\.tsx?)\((\d+),\d+\): (error .*)$/.exec(line);
    const block = match === null ? undefined : fileOf.get(match[1] ?? "");
    if (match === null || block === undefined) continue;
    const list = errors.get(block.key) ?? [];
    list.push(`${block.file}:${block.line + Number(match[2])}: ${(match[3] ?? "").replaceAll(REPO_ROOT, "<repo>/")}`);
    errors.set(block.key, list);
  }
  return errors;
}

describe("the code blocks of README.md and docs/", () => {
  it("compile on their own, except the listed incomplete ones, which still do not", () => {
    expect(blocks.length).toBeGreaterThan(40);
    const errors = diagnose();
    if (process.env["DOCS_BLOCKS_LIST_INCOMPLETE"] === "1") {
      // Prints the current list (first error of each failing block) to start incomplete-blocks.json from.
      const list = Object.fromEntries(
        blocks
          .filter((b) => errors.has(b.key))
          .map((b) => [b.key, (errors.get(b.key)?.[0] ?? "").replace(/^[^ ]+ error /, "")]),
      );
      console.log(`INCOMPLETE-LIST ${JSON.stringify(list)}`);
    }
    const broken = blocks
      .filter((b) => errors.has(b.key) && !Object.hasOwn(INCOMPLETE, b.key))
      .map((b) => (errors.get(b.key) ?? []).join("\n"));
    expect(
      broken,
      "blocks that do not compile (fix them, or list them in incomplete-blocks.json with the reason)",
    ).toEqual([]);
    const fixed = Object.keys(INCOMPLETE).filter((key) => blocks.some((b) => b.key === key) && !errors.has(key));
    expect(fixed, "listed as incomplete but compile now: take them off incomplete-blocks.json").toEqual([]);
    const gone = Object.keys(INCOMPLETE).filter((key) => !blocks.some((b) => b.key === key));
    expect(gone, "listed blocks that no longer exist").toEqual([]);
  }, 240_000);
});
