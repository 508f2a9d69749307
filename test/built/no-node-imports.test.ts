import { readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { bundleForBrowser, forbiddenReach, repoRoot } from "../../scripts/bundle-for-browser.mjs";
import { scanDirectory } from "../../scripts/check-no-node.mjs";

const sdkDist = join(repoRoot, "packages/sdk/dist");
const nodeBuiltins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** Every .js file under a directory, chunks included. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Follows the relative imports of `entries` through dist (esbuild, every package left external)
 * and returns each bare specifier with the dist file that imports it.
 */
async function importsReachedFrom(entries: string[]): Promise<Array<{ from: string; specifier: string }>> {
  const result = await build({
    entryPoints: entries,
    bundle: true,
    write: false,
    outdir: "out",
    format: "esm",
    platform: "neutral",
    packages: "external",
    external: ["node:*"],
    metafile: true,
    logLevel: "silent",
  });
  return Object.entries(result.metafile.inputs).flatMap(([from, input]) =>
    input.imports.filter((i) => i.external === true).map((i) => ({ from, specifier: i.path })),
  );
}

describe("built @antigravity-ts/sdk stays runtime-neutral", () => {
  const files = jsFiles(sdkDist);

  it("has built files to check", () => {
    expect(files.map((f) => relative(sdkDist, f))).toEqual(
      expect.arrayContaining(["index.js", "wire.js", "testing.js"]),
    );
  });

  it("reaches no node: import or Node builtin from any file in dist, chunks included", async () => {
    const reached = await importsReachedFrom(files);
    expect(reached.length).toBeGreaterThan(0); // @bufbuild/protobuf at least: the scan did see imports
    const offending = reached.filter(({ specifier }) => nodeBuiltins.has(specifier) || specifier.startsWith("node:"));
    expect(offending).toEqual([]);
  });

  it("passes scripts/check-no-node.mjs --imports-only over every file in dist", () => {
    expect(scanDirectory(sdkDist, { importsOnly: true, exclude: [] })).toEqual([]);
  });

  it("imports ws only through isomorphic-ws, never directly", async () => {
    const reached = await importsReachedFrom(files);
    expect(reached.filter(({ specifier }) => specifier === "ws" || specifier.startsWith("ws/"))).toEqual([]);
  });

  for (const [label, contents] of [
    ["@antigravity-ts/sdk", `export * from "@antigravity-ts/sdk";`],
    ["@antigravity-ts/sdk/wire", `export * from "@antigravity-ts/sdk/wire";`],
    ["@antigravity-ts/sdk/testing", `export * from "@antigravity-ts/sdk/testing";`],
  ] as const) {
    for (const runtime of ["browser", "workerd"] as const) {
      it(`bundles ${label} for ${runtime} without ws, isomorphic-ws/node.js or node:`, async () => {
        const bundle = await bundleForBrowser(contents, { runtime, minify: false });
        expect(bundle.inputs.some((i) => i.includes("packages/sdk/dist/"))).toBe(true);
        expect(forbiddenReach(bundle)).toEqual([]);
      });
    }
  }

  it("resolves isomorphic-ws to its browser entry (the global WebSocket) under the browser condition", async () => {
    const bundle = await bundleForBrowser(`export * from "@antigravity-ts/sdk";`, {
      runtime: "browser",
      minify: false,
    });
    const usesIsomorphicWs = bundle.inputs.some((i) => i.includes("node_modules/isomorphic-ws/"));
    // The transport may use the global WebSocket directly; if it goes through isomorphic-ws, it must be browser.js.
    if (usesIsomorphicWs)
      expect(bundle.inputs.filter((i) => i.includes("node_modules/isomorphic-ws/"))).toEqual([
        expect.stringMatching(/node_modules\/isomorphic-ws\/browser\.js$/),
      ]);
    expect(bundle.inputs.some((i) => /node_modules\/ws\//.test(i))).toBe(false);
  });
});

describe("built @antigravity-ts/node outside Node", () => {
  for (const runtime of ["browser", "workerd"] as const) {
    it(`resolves to the not-node guard under the ${runtime} conditions`, async () => {
      const bundle = await bundleForBrowser(`export * from "@antigravity-ts/node";`, { runtime, minify: false });
      expect(bundle.inputs).toContain("packages/node/dist/not-node.js");
      expect(bundle.inputs).not.toContain("packages/node/dist/index.js");
      expect(forbiddenReach(bundle)).toEqual([]);
    });

    it(`keeps the guard's throw in a ${runtime} bundle (it is the package's one side effect)`, async () => {
      const bundle = await bundleForBrowser(`import "@antigravity-ts/node";`, { runtime, minify: true });
      expect(bundle.code).toContain("only runs on Node.js");
    });
  }
});
