import ts from "@typescript/typescript6";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The folders of each package form layers: a module imports only from its own folder or from a lower
// layer (docs/design.md "Layout"). Every relative import counts, `import type` included, since a type
// import is a dependency as well. A top-level file is its own node when the order names it; the other
// top-level files (entry points) are the node ".".

const repo = fileURLToPath(new URL("../../../", import.meta.url));

/** Lowest layer first; nodes in one layer may import each other only without a cycle. */
const SDK_LAYERS: readonly (readonly string[])[] = [
  ["gen", "errors", "error-text", "defined-properties", "call-options", "global-disposable"],
  ["util"],
  ["wire"],
  ["step", "prompt", "usage"],
  ["mapping"],
  ["tools", "policies", "continuation", "telemetry", "triggers"],
  ["hooks"],
  ["transport"],
  ["connection"],
  ["conversation"],
  ["transcript", "session", "storage", "config"],
  ["agent"],
  ["internal", "testing", "index", "replay", "acp", "hosted"],
];

const HARNESS_LAYERS: readonly (readonly string[])[] = [
  ["log", "crash-guard", "step-ledger"],
  ["model"],
  ["tools"],
  ["providers"],
  ["loop"],
  ["session"],
  ["server"],
  ["interactions", "acp"],
  [".", "e2e", "test-support"],
];

const NODE_LAYERS: readonly (readonly string[])[] = [
  ["socket"],
  ["subprocess", "local-path", "triggers"],
  ["storage", "gateway", "replay", "acp", "hosted"],
  ["agent"],
  ["."],
];

const CLI_LAYERS: readonly (readonly string[])[] = [["cli"], ["session"], ["."]];

/** Imports that still break the order, each with why; the test fails once one is gone, so the list only shrinks. */
const KNOWN: Record<string, string> = {};

interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")
      ? [path]
      : [];
  });
}

function nodeOf(pathInSrc: string, named: ReadonlySet<string>): string {
  const slash = pathInSrc.indexOf("/");
  if (slash >= 0) return pathInSrc.slice(0, slash);
  const base = pathInSrc.replace(/\.(ts|js|mts|mjs)$/, "");
  return named.has(base) ? base : ".";
}

/** The arrows between nodes of one package's src, from the TypeScript compiler's own import scanner. */
function folderEdges(src: string, named: ReadonlySet<string>): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(src)) {
    const inSrc = relative(src, file);
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = relative(src, resolve(dirname(file), specifier));
      if (target.startsWith("..")) continue;
      const from = nodeOf(inSrc, named);
      const to = nodeOf(target, named);
      if (from !== to) edges.push({ from, to, file: inSrc, specifier });
    }
  }
  return edges;
}

/** Strongly connected groups of more than one node (Tarjan). */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)!.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return groups;
}

/** Each problem as "from -> to: file imports specifier (why)". */
function layerProblems(src: string, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((layer, i) => layer.map((node) => [node, i] as const)));
  const edges = folderEdges(src, new Set(rank.keys()));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const edge of edges) {
    const key = `${edge.from} -> ${edge.to}`;
    const why = !rank.has(edge.from)
      ? `${edge.from} is in no layer`
      : !rank.has(edge.to)
        ? `${edge.to} is in no layer`
        : rank.get(edge.to)! > rank.get(edge.from)!
          ? "upward"
          : undefined;
    if (why && !seen.has(key)) {
      seen.add(key);
      problems.push(`${key}: ${edge.file} imports ${edge.specifier} (${why})`);
    }
  }
  // An upward arrow is reported above; a cycle without one runs through a single layer.
  const sideways = edges.filter((edge) => rank.has(edge.from) && rank.get(edge.from) === rank.get(edge.to));
  for (const group of cycles(sideways)) {
    for (const edge of sideways) {
      const key = `${edge.from} -> ${edge.to}`;
      if (group.includes(edge.from) && group.includes(edge.to) && !seen.has(key)) {
        seen.add(key);
        problems.push(`${key}: ${edge.file} imports ${edge.specifier} (cycle ${group.join(" ↔ ")})`);
      }
    }
  }
  return problems.sort();
}

function unexplained(problems: readonly string[]): string[] {
  return problems.filter((problem) => !(problem.slice(0, problem.indexOf(":")) in KNOWN));
}

const PACKAGES: readonly (readonly [string, readonly (readonly string[])[]])[] = [
  ["sdk", SDK_LAYERS],
  ["harness", HARNESS_LAYERS],
  ["node", NODE_LAYERS],
  ["cli", CLI_LAYERS],
];

describe.each(PACKAGES)("packages/%s/src", (name, layers) => {
  it("imports only sideways without a cycle, or down", () => {
    expect(unexplained(layerProblems(join(repo, "packages", name, "src"), layers))).toEqual([]);
  });
});

// Issue 24: the connection is a protocol pipe (it knows nothing of agents, continuations or the
// conversation above it), and the streaming session is built on the conversation's public API.
describe("packages/sdk/src, the thin middle", () => {
  const src = join(repo, "packages", "sdk", "src");
  const edges = folderEdges(src, new Set(SDK_LAYERS.flat()));

  it("connection/ imports nothing from agent/, continuation/, conversation/ or session/", () => {
    const above = new Set(["agent", "continuation", "conversation", "session"]);
    expect(
      edges.filter((e) => e.from === "connection" && above.has(e.to)).map((e) => `${e.file} imports ${e.specifier}`),
    ).toEqual([]);
  });

  it("session/ uses only the conversation's public API (Conversation, ChatStream, its events)", () => {
    const publicModules = new Set([
      "conversation/conversation.js",
      "conversation/chat-stream.js",
      "conversation/chat-events.js",
    ]);
    const reached = edges.filter(
      (e) =>
        e.from === "session" &&
        (e.to === "connection" ||
          (e.to === "conversation" &&
            !publicModules.has(relative(src, resolve(dirname(join(src, e.file)), e.specifier))))),
    );
    expect(reached.map((e) => `${e.file} imports ${e.specifier}`)).toEqual([]);
  });
});

it("every known exception is still needed", () => {
  const all = PACKAGES.flatMap(([name, layers]) => layerProblems(join(repo, "packages", name, "src"), layers));
  const arrows = new Set(all.map((problem) => problem.slice(0, problem.indexOf(":"))));
  expect(Object.keys(KNOWN).filter((arrow) => !arrows.has(arrow))).toEqual([]);
});

describe("the checker", () => {
  const edge = (from: string, to: string): Edge => ({ from, to, file: `${from}/x.ts`, specifier: `../${to}/y.js` });

  it("finds a cycle through three folders, and none in a chain", () => {
    expect(cycles([edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d")])).toEqual([["a", "b", "c"]]);
    expect(cycles([edge("a", "b"), edge("b", "c"), edge("a", "c")])).toEqual([]);
  });

  it("counts type-only, re-export and dynamic imports", () => {
    const info = ts.preProcessFile(
      'import type { A } from "../a/a.js";\nexport { B } from "../b/b.js";\nconst c = await import("../c/c.js");',
      true,
      true,
    );
    expect(info.importedFiles.map((file) => file.fileName)).toEqual(["../a/a.js", "../b/b.js", "../c/c.js"]);
  });
});
