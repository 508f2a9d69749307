import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compileWithCodeCache, evaluate, writeCodeCache, type CompiledScript } from "./code-cache.js";

const codeCacheModule = pathToFileURL(fileURLToPath(new URL("./code-cache.ts", import.meta.url))).href;
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let dir: string;
let file: string;
let cacheFile: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "code-cache-"));
  file = join(dir, "module.cjs");
  cacheFile = `${file}.cache`;
  writeFileSync(file, "#!/usr/bin/env node\nmodule.exports.value = 41 + 1;\nmodule.exports.where = __filename;\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The exports of a compiled module, run as runWithCodeCache runs it. */
const exportsOf = (compiled: CompiledScript): Record<string, unknown> => evaluate(compiled) as Record<string, unknown>;

/**
 * How a fresh process compiles `file` (V8 consults a code cache only for a source it has not
 * compiled before; in this process it has): its `use`, and the module's `value`.
 */
function compileInChild(): { use: string; value: unknown } {
  const script = `import { compileWithCodeCache, evaluate } from ${JSON.stringify(codeCacheModule)};
const compiled = compileWithCodeCache(${JSON.stringify(file)});
process.stdout.write(JSON.stringify({ use: compiled.use, value: evaluate(compiled).value }));`;
  const output = execFileSync(process.execPath, ["--import", tsx, "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  return JSON.parse(output) as { use: string; value: unknown };
}

describe("the harness's code cache", () => {
  it("compiles without a cache, then, in a new process, from the one written for it", () => {
    const first = compileWithCodeCache(file);
    expect(first.use).toBe("absent");
    expect(exportsOf(first)).toEqual({ value: 42, where: file });
    writeCodeCache(cacheFile, first);
    expect(readFileSync(cacheFile).subarray(0, 32).equals(first.hash)).toBe(true);
    expect(compileInChild()).toEqual({ use: "used", value: 42 });
  });

  it("does not use a cache made from other source of the same length (V8 checks only the length)", () => {
    writeCodeCache(cacheFile, compileWithCodeCache(file));
    writeFileSync(file, readFileSync(file, "utf8").replace("41 + 1", "40 + 3"));
    const changed = compileWithCodeCache(file);
    expect(changed.use).toBe("refused");
    expect(exportsOf(changed).value).toBe(43);
  });

  it("survives a damaged cache: V8's refusal of garbage behind the right hash, a truncated file, an empty one", () => {
    const { hash } = compileWithCodeCache(file);
    writeFileSync(cacheFile, Buffer.concat([hash, Buffer.alloc(4096, 0x5a)]));
    expect(compileInChild()).toEqual({ use: "refused", value: 42 });
    for (const damaged of [hash.subarray(0, 10), Buffer.alloc(0)]) {
      writeFileSync(cacheFile, damaged);
      const again = compileWithCodeCache(file);
      expect(again.use).toBe("refused");
      expect(exportsOf(again).value).toBe(42);
    }
  });

  it("reads no special file, dangling link or oversized file in the cache's place, and never blocks on a FIFO", () => {
    const cases: [string, () => void][] = [
      ["a FIFO", () => execFileSync("mkfifo", [cacheFile])],
      [
        "a link to a FIFO",
        () => (execFileSync("mkfifo", [join(dir, "fifo")]), symlinkSync(join(dir, "fifo"), cacheFile)),
      ],
      ["a dangling link", () => symlinkSync(join(dir, "nowhere"), cacheFile)],
      ["a directory", () => mkdirSync(cacheFile)],
      ["a 65 MiB file", () => (writeFileSync(cacheFile, ""), truncateSync(cacheFile, 65 * 1024 * 1024))],
    ];
    for (const [what, make] of cases) {
      rmSync(cacheFile, { recursive: true, force: true });
      rmSync(join(dir, "fifo"), { force: true });
      make();
      const compiled = compileWithCodeCache(file);
      expect(compiled.use, what).toBe("absent");
      expect(exportsOf(compiled).value, what).toBe(42);
    }
  });

  it("refuses to run a source that is not a regular file", () => {
    rmSync(file);
    execFileSync("mkfifo", [file]);
    expect(() => compileWithCodeCache(file)).toThrow(/not a regular file/);
  });

  it("writes a cache only through a new file: a link planted at the cache's place is replaced, its target untouched", () => {
    const target = join(dir, "elsewhere");
    writeFileSync(target, "keep");
    symlinkSync(target, cacheFile);
    const compiled = compileWithCodeCache(file);
    writeCodeCache(cacheFile, compiled);
    expect(readFileSync(target, "utf8")).toBe("keep");
    expect(lstatSync(cacheFile).isFile()).toBe(true);
    expect(readFileSync(cacheFile).subarray(0, 32).equals(compiled.hash)).toBe(true);
  });
});
