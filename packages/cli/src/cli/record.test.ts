import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, allowAll } from "@antigravity-ts/sdk";
import { acpAgent } from "@antigravity-ts/sdk/acp";
import { parseTrace, replayStream, replayTransport, REDACTED } from "@antigravity-ts/sdk/replay";
import { ensureScriptedReferenceHarness, startListeningHarness } from "@antigravity-ts/test-kit";
import { CliUsageError } from "./cli-args.js";
import { runOneShot } from "./quickstart.js";
import { parseRecordArgs, runRecorded } from "./record.js";

// `antigravity record` end to end: the one-shot mode recorded against the reference harness as a
// subprocess (given by path, as a real localharness would be) and against a listening harness;
// the trace replays the same session without any harness.

let harnessPath = "";
let scratch = "";
beforeAll(async () => {
  harnessPath = await ensureScriptedReferenceHarness();
  scratch = await mkdtemp(join(tmpdir(), "antigravity-record-test-"));
}, 300_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A non-TTY output that keeps what was written. */
function capture(): { write(text: string): boolean; text(): string; isTTY: false } {
  let text = "";
  const write = (chunk: string): boolean => {
    text += chunk;
    return true;
  };
  return { write, text: () => text, isTTY: false };
}

/** The model's part of the one-shot output: the lines after the prompt, without timings. */
const answerOf = (output: string): string =>
  output
    .split("\n")
    .filter((line) => !/ready in|harness:|model:|tokens|\d+ ms/.test(line))
    .join("\n");

describe("parseRecordArgs", () => {
  it("takes --out, an optional --url, and the command to record after --", () => {
    expect(parseRecordArgs(["--out", "t.ndjson", "--", "-p", "hi"])).toEqual({
      out: "t.ndjson",
      cli: { mode: "prompt", prompt: "hi", verbose: false },
    });
    expect(parseRecordArgs(["--out=t.ndjson", "--url", "ws://127.0.0.1:9/"])).toMatchObject({
      out: "t.ndjson",
      url: "ws://127.0.0.1:9/",
      cli: { mode: "demo" },
    });
    expect(parseRecordArgs(["--help"])).toBe("help");
    expect(() => parseRecordArgs(["--", "-p", "hi"])).toThrow(
      new CliUsageError("record needs --out FILE; run antigravity record --help"),
    );
    expect(() => parseRecordArgs(["--out", "t", "-p", "hi"])).toThrow(/the command to record goes after --/);
    expect(() => parseRecordArgs(["--out", "t", "--url", "http://x"])).toThrow(/--url takes a ws:\/\/ or wss:\/\/ URL/);
    expect(() => parseRecordArgs(["--out", "t", "--", "--version"])).toThrow(/no session to record/);
    expect(() => parseRecordArgs(["--out", "t", "--url", "ws://h:1", "--", "--acp-agent", "a"])).toThrow(
      /give one of them/,
    );
  });
});

describe("antigravity record", () => {
  it("writes the session of a one-shot prompt against a harness binary, secrets redacted, and the trace replays it without a harness", async () => {
    const file = join(scratch, "one-shot.ndjson");
    const token = "svc-token-0f8e7d6c5b4a";
    const env = { ...process.env, MY_SERVICE_TOKEN: token };
    const recordedOut = capture();
    const command = parseRecordArgs([
      "--out",
      file,
      "--",
      "--harness",
      harnessPath,
      "-p",
      `hello, my token is ${token}`,
    ]);
    if (command === "help") throw new Error("unreachable");
    expect(await runRecorded(command, (cli) => runOneShot(cli, recordedOut), env)).toBe(0);

    const text = await readFile(file, "utf8");
    expect(text).not.toContain(token);
    const trace = parseTrace(text);
    expect(trace.header.meta).toEqual({ client: "antigravity record", mode: "prompt", peer: "subprocess" });
    expect(trace.connections).toHaveLength(1);
    expect(trace.events.find((e) => e.kind === "handshake")).toMatchObject({ output: { apiKey: REDACTED } });
    expect(text).toContain(`"text":"hello, my token is ${REDACTED}"`);
    expect(trace.events.at(-1)).toMatchObject({ kind: "close", by: "client" });

    // The same command with the trace as its harness: the same answer (where the harness echoed
    // the token, the trace holds it redacted), and every frame played.
    const replay = replayTransport(text);
    const replayedOut = capture();
    const replayed = { ...command.cli, wrapTransport: () => Object.assign(() => replay, { startsHarness: true }) };
    expect(await runOneShot(replayed, replayedOut)).toBe(0);
    replay.verify();
    const masked = (output: string): string => answerOf(output).split(token).join(REDACTED);
    expect(masked(replayedOut.text())).toBe(masked(recordedOut.text()));
    expect(replayedOut.text()).toContain(`The user said: “hello, my token is ${REDACTED}”`);
    expect(answerOf(recordedOut.text())).toContain("hello, my token is");
  });

  it("records against a harness that is already listening (--url), with no handshake", async () => {
    const harness = await startListeningHarness();
    try {
      const file = join(scratch, "listening.ndjson");
      const command = parseRecordArgs(["--out", file, "--url", harness.url, "--", "-p", "hello"]);
      if (command === "help") throw new Error("unreachable");
      const out = capture();
      expect(
        await runRecorded(command, (cli) => runOneShot(cli, out), {
          ...process.env,
          ANTIGRAVITY_API_KEY: harness.apiKey,
        }),
      ).toBe(0);
      const text = await readFile(file, "utf8");
      expect(text).not.toContain(harness.apiKey);
      const trace = parseTrace(text);
      expect(trace.header.meta).toMatchObject({ peer: "listening harness" });
      expect(trace.events.some((e) => e.kind === "handshake")).toBe(false);
      expect(trace.events.filter((e) => e.kind === "frame" && e.from === "client").length).toBeGreaterThanOrEqual(2);
    } finally {
      await harness.stop();
    }
  });

  it("records an ACP agent's session (--acp-agent) as a trace of wire acp, and the trace replays it with no agent", {
    timeout: 120_000,
  }, async () => {
    const file = join(scratch, "acp.ndjson");
    const script = join(scratch, "acp-script.json");
    await writeFile(script, JSON.stringify({ turns: [{ match: "", calls: [{ text: "Answer over ACP" }] }] }));
    const token = "svc-token-acp-1a2b3c4d5e";
    const prompt = `hello, my token is ${token}`;
    const agentCommand = `"${process.execPath}" "${harnessPath}" --acp --script "${script}"`;
    const command = parseRecordArgs([
      "--out",
      file,
      "--",
      "--acp-agent",
      agentCommand,
      "--workspace",
      scratch,
      "-p",
      prompt,
    ]);
    if (command === "help") throw new Error("unreachable");
    const out = capture();
    expect(await runRecorded(command, (cli) => runOneShot(cli, out), { ...process.env, MY_SERVICE_TOKEN: token })).toBe(
      0,
    );
    expect(out.text()).toContain("Answer over ACP");
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(token);
    const trace = parseTrace(text);
    expect(trace.header).toMatchObject({ wire: "acp", meta: { client: "antigravity record", peer: "acp agent" } });

    const replay = replayStream(trace);
    await using agent = await Agent.builder()
      .connection(acpAgent({ stream: replay.open, cwd: scratch }))
      .policies(allowAll())
      .build()
      .start();
    expect((await agent.chatToCompletion(prompt)).text).toBe("Answer over ACP");
    await agent.stop();
    replay.verify();
  });
});
