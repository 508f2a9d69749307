import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_HOSTED_AGENT, INTERACTIONS_CAPABILITIES } from "@antigravity-ts/sdk/hosted";
import { parseTrace, replayFetch } from "@antigravity-ts/sdk/replay";
import { parseScript, startInteractionsEmulator, type InteractionsEmulator } from "@antigravity-ts/harness";
import { REPO_ROOT } from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliUsageError, parseCliArgs } from "./cli-args.js";
import { DEFAULT_HOSTED_AGENT_COPY, INTERACTIONS_CAPABILITIES_COPY } from "./hosted-agent-command.js";
import { runOneShot } from "./quickstart.js";
import { parseRecordArgs, runRecorded } from "./record.js";

// `antigravity --hosted`: the CLI against the reference harness's Interactions API emulator (a
// real HTTP server on a real socket), as a child process in the NDJSON mode and the REPL, and
// recorded with `antigravity record`, whose trace then replays the session with no server.

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const KEY = "cli-hosted-key-0123456789abcdef";

let root = "";
let emulator: InteractionsEmulator;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "antigravity-cli-hosted-"));
  const workspace = join(root, "sandbox");
  await mkdir(workspace);
  await writeFile(join(workspace, "notes.txt"), "hi\n");
  const script = parseScript({
    turns: [
      {
        match: "weather",
        calls: [{ toolCalls: [{ name: "$client", args: { city: "Paris" } }] }, { text: "Done with the weather." }],
      },
      {
        match: "list",
        calls: [{ toolCalls: [{ name: "list_directory", args: { directory_path: "." } }] }, { text: "Listed." }],
      },
      { calls: [{ text: "Hello from the hosted agent." }] },
    ],
  });
  emulator = await startInteractionsEmulator({ apiKey: KEY, host: "127.0.0.1", port: 0, workspace, script });
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

/** Runs the real CLI with `args` and `stdin`, GEMINI_API_KEY as given (removed when undefined). */
function runCli(
  args: readonly string[],
  stdin: string,
  key: string | undefined,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["GEMINI_API_KEY", "ANTIGRAVITY_HARNESS_PATH", "ANTIGRAVITY_MODEL_PROVIDER"]) delete env[name];
  if (key !== undefined) env.GEMINI_API_KEY = key;
  const child = spawn(process.execPath, ["--conditions=antigravity-source", "--import", "tsx", CLI, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `run` with GEMINI_API_KEY set to `key` in this process: the command reads it there, as the CLI does. */
async function withKey<T>(key: string, run: () => Promise<T>): Promise<T> {
  const before = process.env.GEMINI_API_KEY;
  process.env.GEMINI_API_KEY = key;
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.GEMINI_API_KEY;
    else process.env.GEMINI_API_KEY = before;
  }
}

/** A non-TTY output that keeps what was written. */
function capture(): { write(text: string): boolean; text(): string; isTTY: false } {
  let text = "";
  const write = (chunk: string): boolean => {
    text += chunk;
    return true;
  };
  return { write, text: () => text, isTTY: false };
}

describe("--hosted", () => {
  it("the copied capabilities and default agent are the interactions wire's", () => {
    expect(INTERACTIONS_CAPABILITIES_COPY).toEqual(INTERACTIONS_CAPABILITIES);
    expect(DEFAULT_HOSTED_AGENT_COPY).toBe(DEFAULT_HOSTED_AGENT);
  });

  it("is parsed with --agent and --base-url, which apply to it alone", () => {
    expect(parseCliArgs(["--hosted", "-p", "hi"])).toEqual({
      mode: "prompt",
      prompt: "hi",
      hosted: {},
      verbose: false,
    });
    expect(
      parseCliArgs([
        "--hosted",
        "--agent",
        "antigravity-preview-05-2026",
        "--base-url",
        "http://127.0.0.1:8787/",
        "-i",
      ]),
    ).toMatchObject({
      mode: "interactive",
      hosted: { agent: "antigravity-preview-05-2026", baseUrl: "http://127.0.0.1:8787/" },
    });
    expect(() => parseCliArgs(["--hosted", "--harness", "/h"])).toThrow(
      new CliUsageError("give either --harness or --hosted, not both"),
    );
    expect(() => parseCliArgs(["--hosted", "--acp-agent", "gemini --acp"])).toThrow(/either --acp-agent or --hosted/);
    expect(() => parseCliArgs(["--hosted", "--workspace", "."])).toThrow(/its own sandbox/);
    expect(() => parseCliArgs(["--base-url", "http://x/"])).toThrow(
      new CliUsageError("--base-url applies to --hosted"),
    );
    expect(() => parseCliArgs(["--agent", "a"])).toThrow(new CliUsageError("--agent applies to --hosted"));
    expect(() => parseCliArgs(["--hosted", "--base-url", "ws://x/"])).toThrow(/takes an http:\/\/ or https:\/\/ URL/);
    expect(() => parseCliArgs(["--hosted", "--base-url", "not a url"])).toThrow(/takes an http:\/\/ or https:\/\/ URL/);
    expect(() => parseCliArgs(["--hosted", "--base-url="])).toThrow(/--base-url needs a value/);
    expect(() => parseCliArgs(["--hosted=x"])).toThrow(CliUsageError);
  });

  it("refuses to start against Google without GEMINI_API_KEY, saying what to set (a child process)", async () => {
    const { code, stdout, stderr } = await runCli(["--hosted", "-p", "hello"], "", undefined);
    expect(code).toBe(1);
    expect(stdout.trim()).toBe(`hosted agent ${DEFAULT_HOSTED_AGENT} at https://generativelanguage.googleapis.com/`);
    expect(stderr).toContain("antigravity: FailedPrecondition: --hosted needs a Gemini API key: set GEMINI_API_KEY");
  });

  it("without a key, a --base-url that wants one answers PermissionDenied (the emulator always wants its key)", async () => {
    const { code, stderr } = await runCli(["--hosted", "--base-url", emulator.url, "-p", "hello"], "", undefined);
    expect(code).toBe(1);
    expect(stderr).toContain("PermissionDenied");
    expect(stderr).toContain("x-goog-api-key");
  });

  it("NDJSON mode: a client tool answered in this process, a hosted tool, text and a result per turn (a child process)", async () => {
    const input = [
      { type: "user_message", content: "what is the weather in Paris?", id: "w" },
      { type: "user_message", content: "list the files", id: "l" },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join("");
    const args = ["--hosted", "--base-url", emulator.url, "--input-format", "ndjson", "--output-format", "ndjson"];
    const { code, stdout, stderr } = await runCli(args, input, KEY);
    expect(code, stderr).toBe(0);
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
    expect(stdout).not.toContain(KEY);
    expect(lines.filter((l) => l.type === "receipt").map((l) => l.id)).toEqual(["w", "l"]);
    const toolResults = lines.filter((l) => l.type === "toolResult");
    expect(toolResults[0]).toMatchObject({ toolCall: { name: "get_weather", args: { city: "Paris" } } });
    expect(JSON.stringify(toolResults[0]?.result)).toContain('"city":"Paris"');
    expect(toolResults[1]).toMatchObject({ toolCall: { name: "list_directory" } });
    expect(JSON.stringify(toolResults[1]?.result)).toContain("notes.txt");
    const text = lines
      .filter((l) => l.type === "text")
      .map((l) => l.text)
      .join("");
    expect(text).toBe("Done with the weather.Listed.");
    expect(lines.filter((l) => l.type === "result").map((l) => l.success)).toEqual([true, true]);
    expect(lines.some((l) => l.type === "error")).toBe(false);
  });

  it("REPL: turns, and /save, /clear, /load going on from the saved interaction (a child process, input piped)", async () => {
    const saved = join(root, "repl-conversation.json");
    const { code, stdout, stderr } = await runCli(
      ["--hosted", "--base-url", emulator.url, "-i", "--no-color"],
      `hello\n/save ${saved}\n/clear\n/load ${saved}\nweather in Paris?\n/exit\n`,
      KEY,
    );
    expect(code, stderr).toBe(0);
    const { conversationId } = JSON.parse(await readFile(saved, "utf8")) as { conversationId: string };
    // The model keeps its context on the API's side: no "the harness has no record of it".
    expect(stdout).toContain(`loaded 1 turn of conversation ${conversationId}\n`);
    expect(stdout).not.toContain("error:");
    expect(stdout).toContain(`hosted agent ${DEFAULT_HOSTED_AGENT} at ${emulator.url}`);
    expect(stdout).toContain("Hello from the hosted agent.");
    expect(stdout).toContain("get_weather");
    expect(stdout).toContain("Done with the weather.");
    expect(stdout).not.toContain(KEY);
  });
});

describe("antigravity record -- --hosted", () => {
  it("writes a trace of wire interactions without the key, and replayFetch plays it back with no server", async () => {
    const file = join(root, "hosted.ndjson");
    const command = parseRecordArgs(["--out", file, "--", "--hosted", "--base-url", emulator.url, "-p", "weather?"]);
    if (command === "help") throw new Error("unreachable");
    const recordedOut = capture();
    expect(await withKey(KEY, () => runRecorded(command, (cli) => runOneShot(cli, recordedOut)))).toBe(0);
    expect(recordedOut.text()).toContain("Done with the weather.");

    const bytes = await readFile(file);
    expect(bytes.includes(KEY)).toBe(false);
    const trace = parseTrace(bytes.toString("utf8"));
    expect(trace.header).toMatchObject({
      wire: "interactions",
      meta: { client: "antigravity record", mode: "prompt", peer: "hosted agent" },
    });
    // The create, then the create that answers the client function (each request a connection).
    expect(trace.connections.length).toBeGreaterThanOrEqual(2);

    // The same command with the trace as the server: nothing listens at this address.
    const replay = replayFetch(trace);
    const replayedOut = capture();
    const replayed = { ...command.cli, hosted: { baseUrl: "http://127.0.0.1:9/" }, hostedFetch: replay.fetch };
    // Any key: the trace holds none, and a redacted header matches whatever is sent.
    expect(await withKey("another-key-for-replay", () => runOneShot(replayed, replayedOut))).toBe(0);
    replay.verify();
    const answer = (text: string): string[] => text.split("\n").filter((line) => /weather|get_weather/.test(line));
    expect(answer(replayedOut.text())).toEqual(answer(recordedOut.text()));
    expect(replayedOut.text()).toContain("Done with the weather.");
  });

  it("refuses --url with --hosted", () => {
    expect(() => parseRecordArgs(["--out", "t", "--url", "ws://h:1", "--", "--hosted"])).toThrow(
      /give --base-url after --/,
    );
  });
});
