import { fileURLToPath } from "node:url";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REGISTRY_MARKERS, staticClosure } from "./static-closure.js";

// Issue 14: importing @antigravity-ts/node (what every Node app and the CLI do first) loads
// neither the protobuf-es runtime nor the generated schema: the subprocess transport's stdio
// handshake is written and read by hand (the SDK's wire/handshake-codec.ts, through /internal)
// and the gateway loads its schema-checked parts with the first gateway. Before, building the
// schema registry was about half of the import (220 ms → 106 ms on the development machine).

const nodeDist = fileURLToPath(new URL("../../packages/node/dist/", import.meta.url));
const sdkDist = fileURLToPath(new URL("../../packages/sdk/dist/", import.meta.url));
const SDK_ENTRIES: Record<string, string> = {
  "@antigravity-ts/sdk": "index.js",
  "@antigravity-ts/sdk/internal": "internal.js",
  "@antigravity-ts/sdk/connection": "connection.js",
  "@antigravity-ts/sdk/continuation": "continuation.js",
  "@antigravity-ts/sdk/storage": "storage.js",
};

describe("importing @antigravity-ts/node", () => {
  it("loads no protobuf-es and no generated schema, in its own files or the SDK entries it imports", () => {
    const node = staticClosure(nodeDist, "index.js");
    expect(node.files.size).toBeGreaterThan(1); // the walk follows index.js's chunk imports
    const sdkImports = [...node.packages].filter((specifier) => specifier.startsWith("@antigravity-ts/sdk"));
    expect(sdkImports.length).toBeGreaterThan(0);
    expect(sdkImports.filter((specifier) => SDK_ENTRIES[specifier] === undefined)).toEqual([]); // not /wire, which re-exports the schema
    expect([...node.packages].filter((specifier) => specifier.startsWith("@bufbuild/"))).toEqual([]);
    for (const specifier of sdkImports) {
      const sdk = staticClosure(sdkDist, SDK_ENTRIES[specifier] as string);
      expect(
        [...sdk.packages].filter((name) => name.startsWith("@bufbuild/")),
        `${specifier} imports protobuf-es`,
      ).toEqual([]);
      for (const [name, code] of sdk.files)
        for (const marker of REGISTRY_MARKERS)
          expect(code.includes(marker), `${specifier}: ${name} holds ${marker}`).toBe(false);
    }
  });

  it("still reaches the gateway's schema checks through a dynamic import (they load with the first gateway)", () => {
    // Each dynamic import resolved against the file that holds it (a chunk, or the entry itself).
    const lazy = [...staticClosure(nodeDist, "index.js").files].flatMap(([file, code]) =>
      [...code.matchAll(/import\(["'](\.{1,2}\/[^"']+)["']\)/g)].map((m) =>
        path.posix.join(path.posix.dirname(file), m[1] as string),
      ),
    );
    const lazyPackages = new Set(lazy.flatMap((name) => [...staticClosure(nodeDist, name).packages]));
    expect(lazyPackages.has("@antigravity-ts/sdk/wire")).toBe(true);
  });
});
