import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { Agent, ErrorCode, StepType, allowAll, askUser, type ChatResponse } from "@antigravity-ts/sdk";
import { acpAgent as acpStreamAgent } from "@antigravity-ts/sdk/acp";
import { REDACTED, fileTraceSink, parseTrace, replayStream, streamRecorder } from "@antigravity-ts/node/replay";
import { acpAgent } from "@antigravity-ts/node/acp";
import {
  GEMINI_ROUTER,
  geminiScratch,
  geminiStream,
  geminiText,
  geminiUsage,
  type GeminiScratch,
} from "@antigravity-ts/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// An ACP session recorded from a real agent — Gemini CLI 0.61 offline, on canned model responses —
// then replayed with no agent process: the same answer and steps, a diff when one client message
// differs, and none of the session's secrets in the trace file.

const SECRET = "sk-live-4f3e2d1c0b9a8877";
const BEARER = "tok9a8b7c6d5e4f3a2b1c";
const PROMPT = `write notes (my token is ${SECRET}; Authorization: Bearer ${BEARER})`;
const GEMINI_KEY = "AIzaFakeGeminiKey0123456789";
const WRITE = {
  candidates: [
    {
      content: {
        role: "model",
        parts: [
          { text: "I will write it." },
          { functionCall: { name: "write_file", args: { file_path: "notes.txt", content: "hello from acp\n" } } },
        ],
      },
      finishReason: "STOP",
    },
  ],
  ...geminiUsage(20, 7),
};

let gemini: GeminiScratch;
let traceFile = "";
let traceText = "";
let recorded: ChatResponse;

/** The agent of both runs: the edit asked about and allowed, the rest allowed. */
function builder(asked: string[]) {
  return Agent.builder().policies([
    askUser("edit", (call) => {
      asked.push(call.name);
      return true;
    }),
    allowAll(),
  ]);
}

beforeAll(async () => {
  gemini = geminiScratch(
    [
      GEMINI_ROUTER,
      geminiStream(WRITE),
      geminiStream({ ...geminiText("Done.", { finishReason: "STOP" }), ...geminiUsage(30, 2) }),
    ],
    [],
    GEMINI_KEY,
  );
  traceFile = join(gemini.root, "acp-session.ndjson");
  // The workspace is written as /workspace, so that the trace replays on any machine.
  const places = [...new Set([await realpath(gemini.workspace), gemini.workspace])];
  const recorder = streamRecorder(fileTraceSink(traceFile), {
    secrets: [SECRET],
    redact: (value) => places.reduce((out, place) => out.split(place).join("/workspace"), value),
    meta: { agent: "gemini --acp (offline)" },
  });
  const asked: string[] = [];
  const agent = builder(asked)
    .connection(acpAgent({ ...gemini.options, wrapStream: recorder.wrap }))
    .build();
  const started = await agent.start();
  try {
    recorded = await started.chatToCompletion(PROMPT);
  } finally {
    await started.stop();
    await recorder.close();
  }
  expect(asked).toEqual(["edit"]);
  traceText = await readFile(traceFile, "utf8");
}, 180_000);

afterAll(() => gemini?.remove());

/** The replayed agent: the core's acpAgent on the replay's streams, no process anywhere. */
function replayed(replay: ReturnType<typeof replayStream>, asked: string[]) {
  return builder(asked)
    .connection(acpStreamAgent({ stream: replay.open, cwd: "/workspace" }))
    .build();
}

describe("an ACP session with Gemini CLI, recorded and replayed", () => {
  it("writes a trace of wire acp: every JSON-RPC message both ways, in order", () => {
    const trace = parseTrace(traceText);
    expect(trace.header).toMatchObject({ wire: "acp", era: "v1", redaction: { defaults: true, custom: true } });
    expect(trace.connections).toHaveLength(1);
    const methods = trace.events.flatMap((e) =>
      e.kind === "frame" && typeof e.frame === "object" && e.frame !== null && !Array.isArray(e.frame)
        ? [`${e.from}:${String(e.frame["method"] ?? "response")}`]
        : [],
    );
    expect(methods.slice(0, 2)).toEqual(["client:initialize", "peer:response"]);
    expect(methods).toContain("client:session/new");
    expect(methods).toContain("client:session/prompt");
    expect(methods).toContain("peer:session/request_permission");
    expect(methods).toContain("peer:session/update");
    expect(recorded.text).toContain("Done.");
  });

  it("keeps the secrets out: no byte of the file holds the key, the token or the bearer token", async () => {
    const bytes = await readFile(traceFile);
    for (const secret of [SECRET, BEARER, GEMINI_KEY, gemini.workspace])
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(traceText).toContain(`Bearer ${REDACTED}`);
  });

  it("replays the session with no agent process: the same answer, the same tool step, every message played", async () => {
    for (const match of ["lenient", "strict"] as const) {
      const replay = replayStream(traceText, { match });
      const asked: string[] = [];
      const agent = await replayed(replay, asked).start();
      let response: ChatResponse;
      try {
        response = await agent.chatToCompletion(PROMPT);
      } finally {
        await agent.stop();
      }
      expect(asked).toEqual(["edit"]);
      expect(response.text).toBe(recorded.text);
      expect(response.steps.find((s) => s.type === StepType.ToolCall)?.toolCalls[0]?.name).toBe("edit");
      expect(response.usageMetadata).toEqual(recorded.usageMetadata);
      replay.verify();
    }
  });

  it("fails with the diff when one client message differs: where, what was expected, what came", async () => {
    const replay = replayStream(traceText);
    const agent = await replayed(replay, []).start();
    try {
      await expect(agent.chatToCompletion(PROMPT.replace("write notes", "write a poem"))).rejects.toThrow();
    } finally {
      await agent.stop();
    }
    expect(replay.mismatch?.code).toBe(ErrorCode.ProtocolError);
    const message = replay.mismatch?.message ?? "";
    expect(message).toMatch(
      /^replay mismatch \(lenient\) at trace line \d+ \(connection 0, client frame \d+ of \d+, session\/prompt/,
    );
    expect(message).toContain("at params.prompt[0].text: differs from the redacted value's visible part");
    expect(message).toContain("write a poem");
    expect(() => replay.verify()).toThrow(replay.mismatch);
  });

  it("refuses a trace of another wire, naming the replay that plays it", () => {
    const other = traceText.replace('"wire":"acp"', '"wire":"interactions"');
    expect(() => replayStream(other)).toThrow(/this trace's wire is interactions: use replayFetch/);
  });
});
