import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const packages = ["sdk", "node", "harness", "cli"] as const;

/** The only files with side effects: node's root (registers Node's Agent defaults), the not-node guard's throw, the CLI's bin. */
const sideEffects: Record<(typeof packages)[number], false | string[]> = {
  sdk: false,
  node: ["./dist/index.js", "./dist/not-node.js"],
  harness: false,
  cli: ["./dist/cli.js"],
};

interface PackageJson {
  name: string;
  sideEffects?: boolean | string[];
  type?: string;
  bin?: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
}

function readPackage(name: string): PackageJson {
  return JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as PackageJson;
}

/** STYLE.md order: "antigravity-source" (dev/tests) first, then types, runtime conditions, node, default last. */
const conditionRank = (condition: string): number =>
  ({ "antigravity-source": 0, types: 1, workerd: 2, deno: 2, browser: 2, node: 3, import: 4, default: 5 })[condition] ??
  -1;

describe.each(packages)("packages/%s/package.json", (name) => {
  const pkg = readPackage(name);
  const maps = Object.entries(pkg.exports).filter(
    (e): e is [string, Record<string, string>] => typeof e[1] === "object",
  );

  it("is an ESM package without side effects (but node's registration of its defaults, the not-node guard's throw and the CLI's bin)", () => {
    expect(pkg.type).toBe("module");
    expect(pkg.sideEffects).toEqual(sideEffects[name]);
  });

  it.each(maps)("orders the conditions of %s as STYLE.md says", (_subpath, conditions) => {
    const keys = Object.keys(conditions);
    expect(keys.map(conditionRank)).not.toContain(-1);
    expect(keys[0]).toBe("antigravity-source");
    expect(keys[1]).toBe("types");
    expect(keys.at(-1)).toBe("default");
    const ranks = keys.map(conditionRank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it("points every export and bin at a file the build produced", () => {
    const targets = [
      ...maps.flatMap(([, conditions]) => Object.values(conditions)),
      ...Object.values(pkg.exports).filter((v): v is string => typeof v === "string"),
      ...Object.values(pkg.bin ?? {}),
    ];
    const missing = targets.filter((t) => !existsSync(join(root, "packages", name, t)));
    expect(missing).toEqual([]);
  });
});

describe("@antigravity-ts/node export map", () => {
  const conditions = readPackage("node").exports["."] as Record<string, string>;
  it("sends every non-Node runtime to the not-node guard", () => {
    expect(conditions["node"]).toBe("./dist/index.js");
    for (const runtime of ["workerd", "deno", "browser", "default"])
      expect(conditions[runtime]).toBe("./dist/not-node.js");
  });
});

describe("@antigravity-ts/sdk entry points (built)", () => {
  const dist = (file: string): string => join(root, "packages/sdk/dist", file);
  const load = (file: string): Promise<Record<string, unknown>> =>
    import(dist(file)) as Promise<Record<string, unknown>>;

  it("keeps internal mappers, queue and abort utilities out of the public root (issue 12 item 4)", async () => {
    const rootExports = await load("index.js");
    expect(rootExports["Agent"]).toBeTypeOf("function");
    const internal = [
      "stepFromUpdate",
      "toolCallsFromUpdate",
      "usageFromWire",
      "AsyncQueue",
      "LogThrottle",
      "linkSignal",
      "delay",
      "abortError",
    ];
    expect(internal.filter((name) => name in rootExports)).toEqual([]);
    const internalExports = await load("internal.js");
    expect(internal.filter((name) => !(name in internalExports))).toEqual([]);
  });

  it("serves the conversation stores from /storage, not from the root", async () => {
    const rootExports = await load("index.js");
    const storage = await load("storage.js");
    const stores = [
      "createMemoryConversationStore",
      "createIndexedDbConversationStore",
      "createDurableObjectConversationStore",
      "encodeSnapshot",
      "loadOrMoveAside",
    ];
    expect(stores.filter((name) => typeof storage[name] !== "function")).toEqual([]);
    expect(stores.filter((name) => name in rootExports)).toEqual([]);
    // The snapshot type's validator stays in the root: Conversation.restore needs it anyway.
    expect(rootExports["parseConversationSnapshot"]).toBeTypeOf("function");
  });

  it("serves the wire-trace recorder and replay from /replay, not from the root (issue 29), and Node's file sink from @antigravity-ts/node/replay", async () => {
    const rootExports = await load("index.js");
    const replay = await load("replay.js");
    const functions = ["recordingTransport", "replayTransport", "compareTraces", "parseTrace", "createMemoryTraceSink"];
    expect(functions.filter((name) => typeof replay[name] !== "function")).toEqual([]);
    expect(functions.filter((name) => name in rootExports)).toEqual([]);
    const nodeReplay = (await import(join(root, "packages/node/dist/replay.js"))) as Record<string, unknown>;
    expect(
      [...functions, "fileTraceSink", "readTraceFile"].filter((name) => typeof nodeReplay[name] !== "function"),
    ).toEqual([]);
  });

  it("serves the continuation functions from /continuation, not from the root (issue 14: a paused turn loads them)", async () => {
    const rootExports = await load("index.js");
    const continuation = await load("continuation.js");
    const functions = [
      "parseContinuation",
      "signContinuation",
      "verifyContinuation",
      "awaitedCall",
      "canonicalJson",
      "ConsumedConfirmations",
    ];
    expect(functions.filter((name) => typeof continuation[name] !== "function")).toEqual([]);
    expect(functions.filter((name) => name in rootExports)).toEqual([]);
  });
});
