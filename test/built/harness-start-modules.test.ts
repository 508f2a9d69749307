import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REGISTRY_MARKERS, staticClosure } from "./static-closure.js";

// Issue 14: the bundled reference harness starts without the generated schema registry and the
// protobuf-es runtime. Its frames are written and read schema-free (the SDK's frame-codec.ts
// through /internal); the registry sits in a chunk imported dynamically, for a frame the fast
// reader leaves undecided or a stored step it cannot read. This follows the static imports of
// dist/bin.js, which is what Node loads before the first line of the harness runs.

const dist = fileURLToPath(new URL("../../packages/harness/dist/", import.meta.url));

describe("the bundled harness starts without the schema registry", () => {
  it("bin.js and its static chunks hold no protobuf-es runtime or generated schema; a lazy chunk does", () => {
    const start = staticClosure(dist, "bin.js").files;
    expect(start.size).toBeGreaterThan(1); // the walk follows bin.js's chunk imports
    for (const [name, code] of start) for (const marker of REGISTRY_MARKERS) expect(code.includes(marker), `${name} holds ${marker}`).toBe(false);
    const bin = start.get("bin.js") ?? "";
    const lazy = [...bin.matchAll(/import\(["']\.\/([^"']+)["']\)/g)].map((match) => match[1] as string);
    const lazyCode = lazy.flatMap((name) => [...staticClosure(dist, name).files.values()]).join("\n");
    expect(lazyCode.includes("function fileDesc(")).toBe(true);
  });
});

describe("the bundled harness starts without the built-ins only tools need", () => {
  it("bin.js and its static chunks import neither node:worker_threads nor node:child_process (loaded at the first tool call)", () => {
    for (const [name, code] of staticClosure(dist, "bin.js").files) {
      for (const builtin of ["node:worker_threads", "node:child_process"]) {
        expect(new RegExp(`from\\s*["']${builtin}["']`).test(code), `${name} imports ${builtin} statically`).toBe(false);
      }
    }
  });
});
