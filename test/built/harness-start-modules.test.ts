import { isAscii } from "node:buffer";
import { spawn } from "node:child_process";
import { createRequire, isBuiltin } from "node:module";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { compileWithCodeCache } from "../../packages/harness/src/code-cache.js";
import { REGISTRY_MARKERS, staticClosure } from "./static-closure.js";

// Issue 14: the bundled reference harness starts from V8's code cache (dist/bin.cjs runs dist/bin.bundle.cjs
// through packages/harness/src/code-cache.ts), and without evaluating what only some sessions need:
// the generated schema registry and the protobuf-es runtime (read schema-free by the SDK's
// frame-codec.ts until a frame needs them) and the built-ins only tools need. bin.bundle.cjs holds every
// module; a module the sources import dynamically is evaluated on first use, so what start-up
// evaluates is the static import closure of src/bin.ts, checked here on an ESM build of it.

const harness = fileURLToPath(new URL("../../packages/harness/", import.meta.url));
const dist = path.join(harness, "dist");
const scratch = mkdtempSync(path.join(tmpdir(), "harness-start-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** src/bin.ts built as ESM with code splitting into `scratch/esm`: dynamic imports become chunks of their own. */
async function esmBuild(): Promise<string> {
  const outdir = path.join(scratch, "esm");
  await build({
    entryPoints: { bin: path.join(harness, "src/bin.ts") },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["antigravity-source"],
    tsconfig: path.join(harness, "tsconfig.json"),
    external: ["bufferutil", "utf-8-validate"],
    logLevel: "error",
  });
  return outdir;
}

describe("what the bundled harness evaluates at start", () => {
  it("neither the protobuf-es runtime nor the generated schema (a lazily imported chunk holds them), nor node:worker_threads or node:child_process", async () => {
    const outdir = await esmBuild();
    const start = staticClosure(outdir, "bin.js").files;
    expect(start.size).toBeGreaterThan(1); // the walk follows bin.js's chunk imports
    for (const [name, code] of start) {
      for (const marker of REGISTRY_MARKERS) expect(code.includes(marker), `${name} holds ${marker}`).toBe(false);
      for (const builtin of ["node:worker_threads", "node:child_process"]) {
        expect(
          new RegExp(`(from\\s*|require\\()["']${builtin}["']`).test(code),
          `${name} imports ${builtin} at start`,
        ).toBe(false);
      }
    }
    const lazy = [...(start.get("bin.js") ?? "").matchAll(/import\(["']\.\/([^"']+)["']\)/g)].map(
      (match) => match[1] as string,
    );
    const lazyCode = lazy.flatMap((name) => [...staticClosure(outdir, name).files.values()]).join("\n");
    expect(lazyCode.includes("function fileDesc(")).toBe(true);
  });
});

describe("the bundled harness's code cache", () => {
  it("bin.cjs is a CommonJS loader of node: built-ins only; the cache dist ships is made from bin.bundle.cjs and V8 takes it", () => {
    const loader = readFileSync(path.join(dist, "bin.cjs"), "utf8");
    const required = [...loader.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1] as string);
    expect(required.length).toBeGreaterThan(0);
    expect(required.every((specifier) => specifier.startsWith("node:"))).toBe(true);
    expect(loader).toContain('"bin.bundle.cjs"');
    const cache = readFileSync(path.join(dist, "bin.bundle.cjs.cache"));
    expect(
      cache.subarray(0, 32).equals(
        createHash("sha256")
          .update(readFileSync(path.join(dist, "bin.bundle.cjs")))
          .digest(),
      ),
    ).toBe(true);
    expect(compileWithCodeCache(path.join(dist, "bin.bundle.cjs")).use).toBe("used");
  });

  it("bin.bundle.cjs is ASCII, so the loader makes its source string without UTF-8 decoding", () => {
    expect(isAscii(readFileSync(path.join(dist, "bin.bundle.cjs")))).toBe(true);
  });

  it("the dependencies bin.bundle.cjs leaves to node_modules (loaded on first use) resolve from it", () => {
    const code = readFileSync(path.join(dist, "bin.bundle.cjs"), "utf8");
    const required = new Set(
      [...code.matchAll(/require\("([^"]+)"\)/g)]
        .map((match) => match[1] as string)
        .filter((specifier) => !isBuiltin(specifier)),
    );
    expect([...required].sort()).toEqual([
      "@bufbuild/protobuf",
      "@bufbuild/protobuf/codegenv2",
      "@bufbuild/protobuf/wkt",
      "re2js",
    ]);
    const resolve = createRequire(path.join(dist, "bin.bundle.cjs")).resolve;
    for (const specifier of required) expect(resolve(specifier)).toMatch(/node_modules/);
  });

  it("a copy without a cache writes one as it exits and starts from it the next time, without rewriting it", async () => {
    const copy = mkdtempSync(path.join(scratch, "copy-"));
    for (const name of ["bin.cjs", "bin.bundle.cjs"]) copyFileSync(path.join(dist, name), path.join(copy, name));
    const cacheFile = path.join(copy, "bin.bundle.cjs.cache");
    await handshakeAndExit(path.join(copy, "bin.cjs"));
    const written = statSync(cacheFile);
    expect(written.size).toBeGreaterThan(100_000);
    await handshakeAndExit(path.join(copy, "bin.cjs"));
    expect(statSync(cacheFile).mtimeMs).toBe(written.mtimeMs);
  });
});

/** Starts `bin` in stdio mode, reads its OutputConfig, closes its stdin and waits for exit code 0. */
async function handshakeAndExit(bin: string): Promise<void> {
  const child = spawn(process.execPath, [bin], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ANTIGRAVITY_MODEL_PROVIDER: "scripted" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  child.stdin.write(Buffer.alloc(4)); // an empty InputConfig
  await new Promise<void>((resolve, reject) => {
    let received = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 4) resolve();
    });
    child.stdout.once("end", () => reject(new Error(`no OutputConfig: ${stderr}`)));
  });
  child.stdin.end();
  expect(await exited, stderr).toBe(0);
}
