import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  create,
  decodeOutputConfig,
  encodeInputConfig,
  frameLengthPrefixed,
  InputConfigSchema,
  LengthPrefixedReader,
} from "@antigravity-ts/sdk/wire";
import { useHarnessFixture } from "../test-support/fixture.js";
import {
  WAIT_MS,
  harnessEnv,
  spawnHarness,
  startListeningHarness,
  type HarnessProcess,
} from "@antigravity-ts/test-kit";
import { finalSteps, harnessConfig, TestClient, type Frame } from "../test-support/ws-client.js";

// Issue 8 item 3 through the real harness: FIFOs, sockets and devices are refused before any
// blocking open, the turn completes, new sessions still initialise (libuv's four threadpool
// threads stay free), and the harness still exits on SIGTERM and on stdin EOF.

const FIFO_CALLS = [
  { name: "view_file", args: { file_path: "pipe" } },
  { name: "view_file", args: { file_path: "pipe" } },
  { name: "edit_file", args: { file_path: "pipe", old_string: "a", new_string: "b" } },
  { name: "view_file", args: { file_path: "link-to-pipe" } },
  { name: "create_file", args: { file_path: "pipe", contents: "x", overwrite: true } },
  { name: "view_file", args: { file_path: "socket" } },
  { name: "search_directory", args: { directory_path: ".", query: "needle" } },
  { name: "find_file", args: { directory_path: ".", pattern: "*" } },
];
const pipe = { name: "view_file", args: { file_path: "pipe" } };
const DEVICE_CALLS = [
  { name: "view_file", args: { file_path: "/dev/stdin" } },
  { name: "view_file", args: { file_path: "/dev/zero" } },
  { name: "edit_file", args: { file_path: "/dev/null", old_string: "a", new_string: "b" } },
  { name: "create_file", args: { file_path: "/dev/null", contents: "x", overwrite: true } },
];
const SCRIPT = {
  turns: [
    { match: "special files", calls: [{ toolCalls: FIFO_CALLS }, { text: "survived" }] },
    // The FIFO first: code that blocks on it never reaches /dev/zero (which it would read forever).
    { match: "devices", calls: [{ toolCalls: [pipe, ...DEVICE_CALLS] }, { text: "survived" }] },
  ],
};

const BLOCKED_FS_CALL = fileURLToPath(new URL("../test-support/blocked-fs-call.ts", import.meta.url));

/** The harness's exit, or "still running" after {@link WAIT_MS}: a liveness bound, not a timing assertion. */
function exitWithin(
  harness: HarnessProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | "still running"> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"still running">((resolve) => (timer = setTimeout(resolve, WAIT_MS, "still running")));
  return Promise.race([harness.exited, bound]).finally(() => clearTimeout(timer));
}

function expectRefused(step: Frame | undefined, message: RegExp): void {
  expect(step).toMatchObject({ state: "STATE_ERROR" });
  expect(step?.["errorMessage"]).toMatch(message);
}

describe("special files never block a tool (issue 8 item 3)", () => {
  let socketServer: Server | undefined;
  const fixture = useHarnessFixture({
    name: "fs-special",
    script: SCRIPT,
    prepare: async (root, ws) => {
      execFileSync("mkfifo", [path.join(ws, "pipe")]);
      execFileSync("ln", ["-s", "pipe", path.join(ws, "link-to-pipe")]);
      await writeFile(path.join(ws, "text.txt"), "needle\n");
      await writeFile(path.join(root, "script.json"), JSON.stringify(SCRIPT));
      const server = createServer();
      socketServer = server;
      await new Promise<void>((resolve) => server.listen(path.join(ws, "socket"), resolve));
    },
  });
  afterAll(() => socketServer?.close());

  it("view_file, edit_file and create_file on a FIFO or socket answer the model with an error and the turn completes", async () => {
    const client = await fixture.connect();
    client.prompt("special files");
    const final = finalSteps(await client.turn());
    const tools = final.filter(
      (s: Frame) => s.viewFile ?? s.editFile ?? s.createFile ?? s.searchDirectory ?? s.findFile,
    );
    expect(tools).toHaveLength(FIFO_CALLS.length);
    const [view1, view2, edit, viaLink, create, socket, search, find] = tools;
    for (const step of [view1, view2, edit, viaLink, socket])
      expectRefused(step, /is not a regular file \((a FIFO|a socket)\)/);
    expectRefused(create, /is not a regular file \(a FIFO\)|already exists/);
    // Walks list and search regular files only: the FIFO and the socket are skipped.
    expect(search).toMatchObject({ state: "STATE_DONE", text: "text.txt:1: needle" });
    expect(find).toMatchObject({ state: "STATE_DONE", findFile: { output: "text.txt" } });
    expect(final[final.length - 1]?.["text"]).toBe("survived");
    client.close();

    // Four more sessions blocked on the FIFO would have taken every libuv threadpool thread.
    const second = await fixture.connect();
    second.prompt("special files");
    await second.turn();
    const third = await fixture.connect();
    expect(third.frames.some((f) => f["initializeConversationResponse"] !== undefined)).toBe(true);
    second.close();
    third.close();
  });

  it("device files and the harness's own stdin are refused when containment is off", async () => {
    const client = await fixture.connect({ policyConfig: { workspaceContainment: "WORKSPACE_CONTAINMENT_DISABLED" } });
    client.prompt("devices");
    const final = finalSteps(await client.turn());
    const [fifo, stdin, zero, editNull, createNull] = final.filter(
      (s: Frame) => s.viewFile ?? s.editFile ?? s.createFile,
    );
    expectRefused(fifo, /is not a regular file \(a FIFO\)/);
    // /dev/stdin links to /proc/self/fd/0, whose target ("pipe:[…]") is no path.
    expectRefused(stdin, /is not a regular file|does not exist/);
    for (const step of [zero, editNull, createNull])
      expectRefused(step, /is not a regular file \(a character device\)/);
    expect(final[final.length - 1]?.["text"]).toBe("survived");
    client.close();
  });

  it("a listen-mode harness exits on SIGTERM after the model touched FIFOs", async () => {
    const client = await fixture.connect();
    client.prompt("special files");
    await client.turn();
    void fixture.harness.stop();
    expect(await exitWithin(fixture.harness)).toEqual({ code: 0, signal: null });
  });

  it("a stdio-mode harness exits on stdin EOF after the model touched FIFOs", async () => {
    const harness = spawnHarness([], {
      env: harnessEnv(undefined, { ANTIGRAVITY_SCRIPT: path.join(fixture.root, "script.json") }),
    });
    const output = await stdioHandshake(harness);
    const client = await TestClient.connect(output.port ?? 0, output.apiKey);
    await client.init(harnessConfig(fixture.workspace));
    client.prompt("special files");
    const final = finalSteps(await client.turn());
    expectRefused(
      final.find((s) => s.viewFile !== undefined),
      /is not a regular file/,
    );
    harness.child.stdin.end();
    expect(await exitWithin(harness)).toEqual({ code: 0, signal: null });
  });

  // The backstop: whatever else might block a pool thread, shutdown does not wait for it.
  it("exits on SIGTERM and on stdin EOF even with a file-system call blocked in a pool thread", async () => {
    const fifo = path.join(fixture.root, "never-opened-fifo");
    execFileSync("mkfifo", [fifo]);
    const env = harnessEnv(undefined, { BLOCKED_FS_FIFO: fifo });
    const listening = await startListeningHarness({ env, nodeArgs: ["--import", BLOCKED_FS_CALL] });
    void listening.stop();
    expect(await exitWithin(listening)).toEqual({ code: null, signal: "SIGTERM" });
    expect(listening.stderr()).toContain("file-system call is still blocked; exiting without waiting for it");

    const stdio = spawnHarness([], { env, nodeArgs: ["--import", BLOCKED_FS_CALL] });
    await stdioHandshake(stdio);
    stdio.child.stdin.end();
    expect(await exitWithin(stdio)).toEqual({ code: null, signal: "SIGTERM" });
    expect(stdio.stderr()).toContain("Stdin closed, cleaning up...");
  });
});

/** §3 handshake with an empty InputConfig; resolves with the decoded OutputConfig. */
async function stdioHandshake(harness: HarnessProcess): Promise<ReturnType<typeof decodeOutputConfig>> {
  harness.child.stdin.write(frameLengthPrefixed(encodeInputConfig(create(InputConfigSchema, {}))));
  const reader = new LengthPrefixedReader();
  const reply = await new Promise<Uint8Array>((resolve, reject) => {
    harness.child.stdout.on("data", (chunk: Buffer) => {
      const [message] = reader.push(new Uint8Array(chunk));
      if (message !== undefined) resolve(message);
    });
    void harness.exited.then(() =>
      reject(new Error(`harness exited before the handshake reply:\n${harness.stderr()}`)),
    );
  });
  return decodeOutputConfig(reply);
}
