import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNodeBuiltin, scanDirectory, scanSource, tokenize } from "../../../scripts/check-no-node.mjs";

// scripts/check-no-node.mjs: packages/sdk must stay free of Node imports and globals.

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const script = join(repo, "scripts", "check-no-node.mjs");

function run(...args: string[]): { status: number; output: string } {
  try {
    return {
      status: 0,
      output: execFileSync(process.execPath, [script, ...args], {
        cwd: repo,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    };
  } catch (error) {
    const failure = error as { status?: number | null; stdout?: string; stderr?: string };
    return { status: failure.status ?? -1, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

describe("packages/sdk", () => {
  it("imports no Node built-in and uses no Node global", () => {
    const result = run(join(repo, "packages/sdk/src"));
    expect(result.output).toContain("no Node imports or globals");
    expect(result.status).toBe(0);
    expect(scanDirectory(join(repo, "packages/sdk/src"))).toEqual([]);
  });
});

describe("the scanner flags", () => {
  it.each([
    ['import { readFile } from "node:fs";', "node:fs"],
    ["import fs from 'fs';", '"fs"'],
    ['import { join } from "path";', '"path"'],
    ['import * as c from "crypto";', '"crypto"'],
    ['import { spawn } from "child_process";', '"child_process"'],
    ['import os from "os";', '"os"'],
    ['import net from "net";', '"net"'],
    ['import { Buffer as B } from "buffer";', '"buffer"'],
    ['import { readFile } from "fs/promises";', '"fs/promises"'],
    ['import type { Server } from "node:http";', "node:http"],
    ['import "node:process";', "node:process"],
    ['export { createHash } from "node:crypto";', "node:crypto"],
    ['export * from "events";', '"events"'],
    ['const fs = await import("node:fs");', "node:fs"],
    ["const fs = await import(`node:${name}`);", "node:"],
    ['import fs = require("fs");', '"fs"'],
    ['/// <reference types="node" />\nexport {};', "Node types"],
  ])("an import: %s", (source, fragment) => {
    const findings = scanSource(source);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.map((f) => f.message).join("\n")).toContain(fragment);
    expect(scanSource(source, { importsOnly: true }).length).toBeGreaterThan(0);
  });

  it.each([
    ["const env = process.env.HOME;", "process"],
    ["if (typeof process !== 'undefined') run();", "process"],
    ["const b = Buffer.from(bytes);", "Buffer"],
    ["const here = __dirname;", "__dirname"],
    ["const me = __filename;", "__filename"],
    ['const ws = require("ws");', "require"],
    ["global.fetch = f;", "global"],
    ['global["x"] = 1;', "global"],
    ["setImmediate(tick);", "setImmediate"],
    ["let x: Buffer | Uint8Array;", "Buffer"],
    ["const text = `${process.platform}-${arch}`;", "process"],
    ["const s = `outer ${`inner ${Buffer.byteLength(x)}`} done`;", "Buffer"],
    ["return { process };", "process"],
    ["const v = cond ? process : other;", "process"],
    ["switch (x) { case process: break; }", "process"],
    ["const r = /a\\/b/; process.exit(1);", "process"],
    ["const half = total / 2; process.exit(half);", "process"],
    ["const x = a++ / 2; Buffer.alloc(x);", "Buffer"],
  ])("a global: %s", (source, name) => {
    const findings = scanSource(source);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings[0]?.message).toContain(name === "require" ? "require()" : `"${name}"`);
    expect(scanSource(source, { importsOnly: true })).toEqual([]);
  });

  it("reports the line and column", () => {
    expect(scanSource("const a = 1;\n  const b = process.argv;")).toEqual([
      { line: 2, column: 13, message: expect.stringContaining('"process"') as string },
    ]);
  });
});

describe("the scanner accepts", () => {
  it.each([
    ["a comment", "// process.env and Buffer are Node-only\nconst a = 1;"],
    ["a block comment", "/* require('fs'); __dirname */ const a = 1;"],
    ["a JSDoc comment", "/**\n * Reads process.env when available.\n */\nexport const x = 1;"],
    ["a string", 'const message = "process exited; Buffer full; require(x)";'],
    ["a single-quoted string", "const m = 'global.thing from \"fs\"';"],
    ["template text", "const m = `the process ${name} failed, see __dirname`;"],
    ["a regex literal", "const re = /process|Buffer\\/x/g;"],
    ["a globalThis guard", "const env = (globalThis as { process?: { env?: Record<string, string> } }).process?.env;"],
    ["globalThis property access", "const B = globalThis.Buffer; const p = globalThis?.process;"],
    ["a property of another object", "child.process.kill(); this.process = p; obj?.Buffer;"],
    ["an object key", "const o = { process: 1, Buffer: 2 };"],
    ["a renaming destructure", "const { process: p } = globalThis as { process?: unknown };"],
    ["an interface member", "interface Step {\n  readonly process: string\n  Buffer?: number;\n}"],
    ["a private field", "class A { #process = 1; run() { return this.#process; } }"],
    [
      "non-Node imports",
      'import { create } from "@bufbuild/protobuf";\nimport WebSocket from "isomorphic-ws";\nimport { x } from "./process.js";\nimport y from "fs-extra-browser";',
    ],
    ["a module named like a builtin prefix", 'import { a } from "pathe";\nimport b from "@scope/fs";'],
    ["Array.from with a builtin name", 'const xs = Array.from("fs");'],
    ["an identifier containing a global's name", "const processed = preprocess(bufferSize); const Buffered = 1;"],
    ["a hashbang", "#!/usr/bin/env node\nexport {};"],
  ])("%s", (_, source) => {
    expect(scanSource(source)).toEqual([]);
  });
});

describe("tokenize", () => {
  it("drops comments and keeps string values, template text and code inside substitutions", () => {
    const tokens = tokenize('a /* x */ "s" `t${b}u` // c\nx = /re/g / 2');
    expect(tokens.map((t) => `${t.kind}:${t.value}`)).toEqual([
      "ident:a",
      "string:s",
      "template:t",
      "ident:b",
      "template:u",
      "ident:x",
      "punct:=",
      "regex:/re/g",
      "punct:/",
      "number:2",
    ]);
  });

  it("knows which specifiers are Node built-ins", () => {
    expect(
      ["node:fs", "fs", "fs/promises", "path/posix", "crypto", "child_process", "os", "net", "buffer", "process"].every(
        isNodeBuiltin,
      ),
    ).toBe(true);
    expect(["isomorphic-ws", "ws", "@bufbuild/protobuf", "./fs.js", "pathe", "fsevents"].some(isNodeBuiltin)).toBe(
      false,
    );
  });
});

describe("the CLI", () => {
  let dir = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "no-node-"));
    mkdirSync(join(dir, "clean"));
    mkdirSync(join(dir, "dirty", "gen"), { recursive: true });
    writeFileSync(
      join(dir, "clean", "ok.ts"),
      "export const ok = (globalThis as { process?: unknown }).process !== undefined; // process\n",
    );
    writeFileSync(join(dir, "dirty", "uses-process.ts"), "export const home = process.env.HOME;\n");
    writeFileSync(
      join(dir, "dirty", "imports-fs.js"),
      'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n',
    );
    writeFileSync(join(dir, "dirty", "skipped.test.ts"), 'import { readFileSync } from "node:fs";\n');
    writeFileSync(join(dir, "dirty", "gen", "skipped_pb.ts"), 'import { readFileSync } from "node:fs";\n');
  });

  afterAll(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("exits 0 on a clean tree", () => {
    expect(run(join(dir, "clean")).status).toBe(0);
  });

  it("exits 1 and lists every finding with file:line:column", () => {
    const result = run(join(dir, "dirty"));
    expect(result.status).toBe(1);
    expect(result.output).toContain(`${join(dir, "dirty", "imports-fs.js")}:1:30: imports the Node built-in "node:fs"`);
    expect(result.output).toContain(`${join(dir, "dirty", "uses-process.ts")}:1:21: uses the Node global "process"`);
    expect(result.output).not.toContain("skipped");
  });

  it("checks only imports with --imports-only", () => {
    const result = run("--imports-only", join(dir, "dirty"));
    expect(result.status).toBe(1);
    expect(result.output).toContain("imports-fs.js");
    expect(result.output).not.toContain("uses-process.ts");
  });

  it("scans a default-excluded folder when --exclude names another", () => {
    const result = run("--exclude", "none", join(dir, "dirty"));
    expect(result.output).toContain("skipped_pb.ts");
  });

  it("exits 2 on bad usage", () => {
    expect(run().status).toBe(2);
    expect(run(join(dir, "missing")).status).toBe(2);
    expect(run("--bogus", dir).status).toBe(2);
  });
});
