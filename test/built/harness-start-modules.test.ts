import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 14: the bundled reference harness starts without the generated schema registry and the
// protobuf-es runtime. Its frames are written and read schema-free (the SDK's frame-codec.ts
// through /internal); the registry sits in a chunk imported dynamically, for a frame the fast
// reader leaves undecided or a stored step it cannot read. This follows the static imports of
// dist/bin.js, which is what Node loads before the first line of the harness runs.

const dist = fileURLToPath(new URL("../../packages/harness/dist/", import.meta.url));

/** `entry` and every chunk it imports statically, transitively: what Node loads before `entry` runs. */
function staticClosure(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const pending = [entry];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (files.has(name)) continue;
    const code = readFileSync(path.join(dist, name), "utf8");
    files.set(name, code);
    for (const match of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{][^"'();]*?from\s*)?["']\.\/([^"']+)["']/g)) pending.push(match[1] as string);
  }
  return files;
}

/** What the protobuf-es runtime and the generated schema define (esbuild keeps the names). */
const REGISTRY_MARKERS = ["function fileDesc(", "function fromJson(", "function toJson("];

describe("the bundled harness starts without the schema registry", () => {
  it("bin.js and its static chunks hold no protobuf-es runtime or generated schema; a lazy chunk does", () => {
    const start = staticClosure("bin.js");
    expect(start.size).toBeGreaterThan(1); // the walk follows bin.js's chunk imports
    for (const [name, code] of start) for (const marker of REGISTRY_MARKERS) expect(code.includes(marker), `${name} holds ${marker}`).toBe(false);
    const bin = start.get("bin.js") ?? "";
    const lazy = [...bin.matchAll(/import\(["']\.\/([^"']+)["']\)/g)].map((match) => match[1] as string);
    const lazyCode = lazy.flatMap((name) => [...staticClosure(name).values()]).join("\n");
    expect(lazyCode.includes("function fileDesc(")).toBe(true);
  });
});

describe("the bundled harness starts without the built-ins only tools need", () => {
  it("bin.js and its static chunks import neither node:worker_threads nor node:child_process (loaded at the first tool call)", () => {
    for (const [name, code] of staticClosure("bin.js")) {
      for (const builtin of ["node:worker_threads", "node:child_process"]) {
        expect(new RegExp(`from\\s*["']${builtin}["']`).test(code), `${name} imports ${builtin} statically`).toBe(false);
      }
    }
  });
});
