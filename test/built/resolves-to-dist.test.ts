import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Guards the premise of this suite: without the "antigravity-source" condition every package import lands in
// dist. The same module instance means the same file; if this fails, the "built" suite silently
// tested the sources again.
const dist = (file: string): string => pathToFileURL(join(import.meta.dirname, "../../packages", file)).href;

describe("vitest.built.config.ts", () => {
  it.each([
    ["@antigravity-ts/sdk", "sdk/dist/index.js"],
    ["@antigravity-ts/sdk/wire", "sdk/dist/wire.js"],
    ["@antigravity-ts/sdk/testing", "sdk/dist/testing.js"],
    ["@antigravity-ts/node", "node/dist/index.js"],
    ["@antigravity-ts/harness", "harness/dist/index.js"],
  ])("resolves %s to packages/%s", async (specifier, file) => {
    const viaPackage = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
    const viaFile = (await import(/* @vite-ignore */ dist(file))) as Record<string, unknown>;
    const names = Object.keys(viaFile).filter((name) => typeof viaFile[name] === "function");
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(viaPackage[name], name).toBe(viaFile[name]);
  });
});
