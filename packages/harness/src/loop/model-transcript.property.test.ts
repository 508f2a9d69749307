import { describe, expect, it } from "vitest";
import type { ModelMessage, ModelToolCall } from "../model/provider.js";
import { dice, type Dice } from "../test-support/seeded-random.js";
import { MAX_SUMMARIES, TRIGGER_PREFIX, Transcript, isRealPrompt } from "./model-transcript.js";

// Seed 002's invariants over seeded random sessions: user prompts, triggers, answers with text,
// thinking and tool calls, results in any order, halts mid-answer and mid-tools, error exits,
// budget/finish stops, compactions at arbitrary points, and save/load round trips. A failure
// names its seed; rerun with that seed to replay it.

const SEEDS = 300;

/** Every call has exactly one result, in the tool messages right after its answer, and no result lacks a call. */
function pairingProblem(messages: readonly ModelMessage[]): string | undefined {
  let open: string[] = [];
  let answered = new Set<string>();
  const settle = (at: number): string | undefined => {
    const missing = open.filter((id) => !answered.has(id));
    return missing.length > 0 ? `calls ${missing.join(",")} have no result before message ${at}` : undefined;
  };
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      for (const result of message.results) {
        if (!open.includes(result.id)) return `result ${result.id} at ${i} answers no open call`;
        if (answered.has(result.id)) return `call ${result.id} has two results`;
        answered.add(result.id);
      }
      continue;
    }
    const problem = settle(i);
    if (problem !== undefined) return problem;
    open = message.role === "model" ? message.toolCalls.map((c) => c.id) : [];
    answered = new Set();
    if (new Set(open).size !== open.length) return `answer ${i} repeats a call id`;
  }
  return settle(messages.length);
}

function viewProblem(view: readonly ModelMessage[]): string | undefined {
  if (view[0]?.role === "tool") return "the view starts on a tool result";
  for (let i = 1; i < view.length; i++) {
    if (view[i]?.role === "user" && view[i - 1]?.role === "user") return `two user messages in a row at ${i}`;
  }
  if (view.some((m) => m.role === "model" && m.text === "" && m.toolCalls.length === 0))
    return "an empty answer is sent";
  if (view.some((m) => m.role === "model" && m.thinking !== undefined)) return "thinking is sent back";
  return pairingProblem(view);
}

/** Plays one random session against a Transcript, as the agent loop drives it, checking as it goes. */
function playSession(seed: number): void {
  const d = dice(seed);
  let transcript = new Transcript();
  let ids = 0;
  /** Real prompts in order, minus those an error exit dropped: the first is the one compaction must keep. */
  const prompts: string[] = [];
  const summaries: string[] = [];
  const check = (where: string): void => {
    const context = `seed ${seed}, ${where}`;
    expect(pairingProblem(transcript.messages), context).toBeUndefined();
    expect(viewProblem(transcript.forProvider()), context).toBeUndefined();
    expect(transcript.messages[0]?.role, context).not.toBe("tool");
    expect(transcript.summaries, context).toEqual(summaries.slice(-MAX_SUMMARIES));
    const firstReal = prompts[0];
    const stillThere = transcript.messages.some((m) => m.role === "user" && m.text === firstReal);
    if (firstReal !== undefined && !stillThere) expect(transcript.firstPrompt, context).toBe(firstReal);
    if (transcript.firstPrompt !== undefined) expect(transcript.firstPrompt, context).toBe(firstReal);
  };
  const answer = (): ModelToolCall[] => {
    const calls = Array.from({ length: d.int(4) }, () => ({
      id: `call_${++ids}`,
      name: d.pick(["view_file", "run_command", "add"]),
      args: { n: ids },
    }));
    transcript.addModel({
      text: d.chance(0.6) ? `text ${ids}` : "",
      thinking: d.chance(0.4) ? `thought ${ids}` : "",
      toolCalls: calls,
    });
    return calls;
  };
  const turns = 1 + d.int(12);
  for (let turn = 0; turn < turns; turn++) {
    const prompt = d.chance(0.2) ? `${TRIGGER_PREFIX} t${turn}` : `prompt ${turn}`;
    if (isRealPrompt(prompt)) prompts.push(prompt);
    transcript.startTurn(prompt);
    let ended = false;
    for (let call = 0; call < 6 && !ended; call++) {
      if (d.chance(0.15)) transcript.addUser(`${TRIGGER_PREFIX} mid ${turn}.${call}`);
      if (d.chance(0.25)) {
        const keepFrom = d.chance(0.5) ? transcript.turnStart : d.int(transcript.messages.length + 1);
        const summary = `summary ${summaries.length}`;
        if (transcript.compact(keepFrom, summary) > 0) summaries.push(summary);
        check(`after compacting at ${keepFrom}`);
      }
      const outcome = d.pick(["answer", "answer", "answer", "halt-streaming", "halt-tools", "error", "stop"] as const);
      if (outcome === "halt-streaming") {
        // The partial answer (maybe with some calls already streamed) is kept.
        const partial = `partial ${++ids}`;
        transcript.addModel({
          text: partial,
          thinking: "",
          toolCalls: d.chance(0.3) ? [{ id: `call_${++ids}`, name: "add", args: {} }] : [],
        });
        transcript.cancelTurn();
        expect(
          transcript.messages.some((m) => m.role === "model" && m.text === partial),
          `seed ${seed}: partial text kept`,
        ).toBe(true);
        ended = true;
      } else if (outcome === "error") {
        const hadOrphan =
          transcript.messages.length > transcript.turnStart && transcript.messages.at(-1)?.role === "user";
        const before = transcript.messages.length;
        const users = (): string[] => transcript.messages.flatMap((m) => (m.role === "user" ? [m.text] : []));
        const usersBefore = users();
        transcript.cancelTurnIncludingUser();
        for (const dropped of usersBefore.filter((text) => !users().includes(text))) {
          const at = prompts.indexOf(dropped);
          if (at >= 0) prompts.splice(at, 1);
        }
        const orphanLeft =
          transcript.messages.length > transcript.turnStart && transcript.messages.at(-1)?.role === "user";
        expect(orphanLeft, `seed ${seed}: orphan prompt dropped`).toBe(false);
        if (hadOrphan) expect(transcript.messages.length, `seed ${seed}`).toBeLessThan(before);
        ended = true;
      } else if (outcome === "stop") {
        ended = true;
      } else {
        const calls = answer();
        if (calls.length === 0) {
          ended = true;
          break;
        }
        // Results arrive for a random prefix of the calls, in random order.
        const done = calls.slice(0, outcome === "halt-tools" ? d.int(calls.length) : calls.length);
        for (const c of [...done].sort(() => (d.chance(0.5) ? 1 : -1)))
          transcript.addToolResult({ id: c.id, name: c.name, response: { ok: c.id } });
        if (outcome === "halt-tools") {
          transcript.cancelTurn();
          ended = true;
        } else if (d.chance(0.1)) {
          transcript.closeOpenCalls("not run: finish ended the turn");
          ended = true;
        }
      }
    }
    check(`after turn ${turn}`);
    if (d.chance(0.3)) {
      // Save and load, through JSON as the session file does.
      const data = transcript.toData();
      transcript = new Transcript(JSON.parse(JSON.stringify(data)));
      expect(transcript.toData(), `seed ${seed}: save and load`).toEqual(data);
    }
  }
}

/** A transcript saved by anything (a harness killed mid-turn, an older version, a hand edit) is repaired on load. */
function playRepair(seed: number, d: Dice): void {
  const messages: ModelMessage[] = [];
  for (let i = 0, n = d.int(14); i < n; i++) {
    const id = `c${d.int(6)}`;
    const kind = d.pick(["user", "model", "tool"] as const);
    if (kind === "user") messages.push({ role: "user", text: `u${i}` });
    else if (kind === "model")
      messages.push({
        role: "model",
        text: d.chance(0.5) ? `m${i}` : "",
        toolCalls: Array.from({ length: d.int(3) }, () => ({ id: `c${d.int(6)}`, name: "f", args: {} })),
      });
    else
      messages.push({
        role: "tool",
        results: Array.from({ length: 1 + d.int(2) }, () => ({ id, name: "f", response: {} })),
      });
  }
  const transcript = new Transcript({ messages });
  expect(pairingProblem(transcript.messages), `seed ${seed}: ${JSON.stringify(messages)}`).toBeUndefined();
  expect(viewProblem(transcript.forProvider()), `seed ${seed}: ${JSON.stringify(messages)}`).toBeUndefined();
}

describe("transcript invariants over random sessions (seed 002)", () => {
  it(`hold for ${SEEDS} seeded sessions`, () => {
    for (let seed = 1; seed <= SEEDS; seed++) playSession(seed);
  });

  it(`repair any stored transcript (${SEEDS} seeds)`, () => {
    for (let seed = 1; seed <= SEEDS; seed++) playRepair(seed, dice(seed * 7919));
  });

  it("the checkers catch what they check", () => {
    const call = { id: "x", name: "f", args: {} };
    expect(
      pairingProblem([
        { role: "model", text: "", toolCalls: [call] },
        { role: "user", text: "u" },
      ]),
    ).toMatch(/no result/);
    expect(
      pairingProblem([
        { role: "model", text: "", toolCalls: [call] },
        {
          role: "tool",
          results: [
            { id: "x", name: "f", response: {} },
            { id: "x", name: "f", response: {} },
          ],
        },
      ]),
    ).toMatch(/two results/);
    expect(viewProblem([{ role: "tool", results: [] }])).toMatch(/starts on a tool result/);
    expect(
      viewProblem([
        { role: "user", text: "a" },
        { role: "user", text: "b" },
      ]),
    ).toMatch(/two user messages/);
  });
});
