import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { ModelEvent, ModelMessage, ModelRequest, ToolDeclaration } from "../model/provider.js";
import { ModelError } from "../model/provider.js";
import { parseScript, ScriptError } from "./script-format.js";
import { chunk, createScriptedProvider } from "./scripted.js";

const ADD: ToolDeclaration = {
  name: "add",
  description: "",
  parameters: {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" }, note: { type: "string" } },
    required: ["a", "b"],
  },
};
const FIND: ToolDeclaration = { name: "find_file", description: "", parameters: { type: "object" } };
const FINISH: ToolDeclaration = {
  name: "finish",
  description: "",
  parameters: { type: "object", properties: { answer: { type: "string", enum: ["yes", "no"] } }, required: ["answer"] },
};

function request(messages: ModelMessage[], tools: ToolDeclaration[] = []): ModelRequest {
  return { model: "scripted", systemInstruction: "sys", messages, tools };
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<{
  text: string;
  thinking: string;
  textDeltas: number;
  calls: { name: string; args: Record<string, unknown> }[];
  usage: unknown;
}> {
  const out = {
    text: "",
    thinking: "",
    textDeltas: 0,
    calls: [] as { name: string; args: Record<string, unknown> }[],
    usage: undefined as unknown,
  };
  for await (const event of events) {
    if (event.type === "text") {
      out.text += event.delta;
      out.textDeltas++;
    } else if (event.type === "thinking") out.thinking += event.delta;
    else if (event.type === "toolCall") out.calls.push({ name: event.call.name, args: event.call.args });
    else out.usage = event.usage;
  }
  return out;
}

const signal = new AbortController().signal;

describe("scripted model", () => {
  const script = parseScript({
    turns: [
      {
        regex: "^add (\\d+) and (\\d+)$",
        calls: [
          { text: "adding", toolCalls: [{ name: "add", args: { a: "{{match.1}}", b: 3, note: "from {{prompt}}" } }] },
          { text: "sum is {{result.sum}}, via {{results.add}}" },
        ],
      },
      {
        match: "skip",
        calls: [{ text: "one.", toolCalls: [{ name: "missing_tool", ifAvailable: true }] }, { text: "two." }],
      },
      { match: "boom", calls: [{ text: "partial", error: { message: "quota", httpCode: 429 } }] },
    ],
  });

  it("plays the calls of the matching turn, interpolating the prompt, groups and tool results", async () => {
    const provider = createScriptedProvider({ script });
    const first = await collect(provider.generate(request([{ role: "user", text: "add 2 and 3" }], [ADD]), signal));
    expect(first.text).toBe("adding");
    expect(first.calls).toEqual([{ name: "add", args: { a: "2", b: 3, note: "from add 2 and 3" } }]);
    const second = await collect(
      provider.generate(
        request([
          { role: "user", text: "add 2 and 3" },
          { role: "model", text: "adding", toolCalls: [{ id: "c1", name: "add", args: {} }] },
          { role: "tool", results: [{ id: "c1", name: "add", response: { sum: 5 } }] },
        ]),
        signal,
      ),
    );
    expect(second.text).toBe('sum is 5, via {"sum":5}');
    expect(second.calls).toEqual([]);
  });

  it("merges calls whose tools are unavailable into the next call", async () => {
    const out = await collect(
      createScriptedProvider({ script }).generate(request([{ role: "user", text: "skip it" }]), signal),
    );
    expect(out.text).toBe("one.\n\ntwo.");
    expect(out.calls).toEqual([]);
  });

  it("says so when no turn matches or the script is exhausted", async () => {
    const provider = createScriptedProvider({ script });
    expect((await collect(provider.generate(request([{ role: "user", text: "hello" }]), signal))).text).toBe(
      '(scripted model) No scripted reply matches the prompt "hello".',
    );
    const exhausted = [
      { role: "user", text: "skip" },
      { role: "model", text: "one.\n\ntwo.", toolCalls: [] },
    ] satisfies ModelMessage[];
    expect((await collect(provider.generate(request(exhausted), signal))).text).toBe(
      "(scripted model) The script has no further calls for this prompt.",
    );
  });

  it("fails like an API error after streaming what came before", async () => {
    const texts: string[] = [];
    const run = async (): Promise<void> => {
      for await (const event of createScriptedProvider({ script }).generate(
        request([{ role: "user", text: "boom" }]),
        signal,
      ))
        if (event.type === "text") texts.push(event.delta);
    };
    await expect(run()).rejects.toEqual(new ModelError("quota", 429));
    expect(texts).toEqual(["partial"]);
  });

  it("runs the demo: notice, several deltas, find_file, the first client tool with schema-built args, then finish", async () => {
    const provider = createScriptedProvider();
    const first = await collect(
      provider.generate(request([{ role: "user", text: "hi" }], [ADD, FIND, FINISH]), signal),
    );
    expect(first.text).toContain("(scripted demo model — set GEMINI_API_KEY for a real one)");
    expect(first.thinking).toContain("“hi”");
    expect(first.textDeltas).toBeGreaterThan(2);
    expect(first.calls).toEqual([
      { name: "find_file", args: { directory_path: ".", pattern: "*" } },
      { name: "add", args: { a: 2, b: 3 } },
    ]);
    expect(first.usage).toMatchObject({
      cachedTokens: 0,
      thoughtsTokens: Math.ceil(first.thinking.length / 4),
      candidatesTokens: expect.any(Number),
    });
    const second = await collect(
      provider.generate(
        request(
          [
            { role: "user", text: "hi" },
            { role: "model", text: first.text, toolCalls: [] },
            {
              role: "tool",
              results: [
                { id: "1", name: "find_file", response: { output: "a\nb\nc\nd", count: 4 } },
                { id: "2", name: "add", response: { sum: 5 } },
              ],
            },
          ],
          [ADD, FIND, FINISH],
        ),
        signal,
      ),
    );
    expect(second.text).toContain('Workspace entries found: 4. Your tool\'s answer: {"sum":5}.');
    expect(second.calls).toEqual([{ name: "finish", args: { answer: "yes" } }]);
  });

  it("runs run_command for the demo's 'run' prompt and skips unoffered tools", async () => {
    const provider = createScriptedProvider();
    expect(
      (
        await collect(
          provider.generate(
            request([{ role: "user", text: "run it" }], [{ name: "run_command", description: "", parameters: {} }]),
            signal,
          ),
        )
      ).calls,
    ).toEqual([{ name: "run_command", args: { CommandLine: "echo hello" } }]);
    const bare = await collect(provider.generate(request([{ role: "user", text: "hello" }]), signal));
    expect(bare.calls).toEqual([]);
    // Without find_file and a client tool the answer does not mention them ("n/a" before).
    expect(bare.text).toContain("Here is what I found. That is all this demo model can do");
    expect(bare.text).not.toContain("n/a");
  });

  it("fills a $fromSchema argument and {{match.NAME}} from a named group of the turn's regex", async () => {
    const named = parseScript({
      turns: [
        {
          regex: "^add (?<a>\\d+)$",
          calls: [{ text: "adding {{match.a}} ({{match.1}})", toolCalls: [{ name: "add", args: "$fromSchema" }] }],
        },
      ],
    });
    const out = await collect(
      createScriptedProvider({ script: named }).generate(request([{ role: "user", text: "add 7" }], [ADD]), signal),
    );
    expect(out.text).toBe("adding 7 (7)");
    expect(out.calls).toEqual([{ name: "add", args: { a: "7", b: 3 } }]);
  });

  it("asks the demo's client weather tool about the place the prompt names, else about its example", async () => {
    const weather: ToolDeclaration = {
      name: "get_weather",
      description: "",
      parameters: { type: "object", properties: { city: { type: "string", examples: ["Paris"] } }, required: ["city"] },
    };
    const cityAsked = async (prompt: string): Promise<unknown> =>
      (await collect(createScriptedProvider().generate(request([{ role: "user", text: prompt }], [weather]), signal)))
        .calls[0]?.args["city"];
    expect(await cityAsked("What's the weather like in Tokyo, and what is in this workspace?")).toBe("Tokyo");
    expect(await cityAsked("Weather for New York today?")).toBe("New York");
    expect(await cityAsked("what is the temperature in oslo")).toBe("oslo");
    expect(await cityAsked("What is in this workspace?")).toBe("Paris");
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    const slow = parseScript({ turns: [{ calls: [{ text: "a b c d e f", chunkWords: 1, chunkDelayMs: 5 }] }] });
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const event of createScriptedProvider({ script: slow }).generate(
        request([{ role: "user", text: "x" }]),
        controller.signal,
      )) {
        if (event.type === "text") seen.push(event.delta);
        if (seen.length === 2) controller.abort();
      }
    };
    await expect(run()).rejects.toThrow();
    expect(seen).toEqual(["a ", "b "]);
  });

  it("ends a pause at once when aborted during it, with the signal's reason, and leaves no listener on the signal", async () => {
    const controller = new AbortController();
    const endless = parseScript({ turns: [{ calls: [{ text: "a b", chunkWords: 1, chunkDelayMs: 600_000 }] }] });
    const events = createScriptedProvider({ script: endless })
      .generate(request([{ role: "user", text: "x" }]), controller.signal)
      [Symbol.asyncIterator]();
    const next = events.next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    const reason = new Error("stop now");
    controller.abort(reason);
    await expect(next).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("removes its abort listener when a call streams to its end, so a session's signal does not collect them", async () => {
    const controller = new AbortController();
    const quick = parseScript({
      turns: [{ calls: [{ thinking: "t u", text: "a b c", chunkWords: 1, chunkDelayMs: 1 }] }],
    });
    const provider = createScriptedProvider({ script: quick });
    for (let call = 0; call < 3; call++)
      expect((await collect(provider.generate(request([{ role: "user", text: "x" }]), controller.signal))).text).toBe(
        "a b c",
      );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("numbers its calls past the call_<n> ids the conversation holds (a resumed session), never from call_1 again", async () => {
    const ids = async (messages: ModelMessage[]): Promise<string[]> => {
      const out: string[] = [];
      for await (const event of createScriptedProvider({ script }).generate(request(messages, [ADD]), signal))
        if (event.type === "toolCall") out.push(event.call.id);
      return out;
    };
    expect(await ids([{ role: "user", text: "add 1 and 3" }])).toEqual(["call_1"]);
    const earlier: ModelMessage[] = [
      { role: "user", text: "add 2 and 3" },
      { role: "model", text: "adding", toolCalls: [{ id: "call_7", name: "add", args: {} }] },
      { role: "tool", results: [{ id: "call_7", name: "add", response: { sum: 5 } }] },
      { role: "model", text: "sum is 5", toolCalls: [] },
    ];
    expect(await ids([...earlier, { role: "user", text: "add 1 and 3" }])).toEqual(["call_8"]);
  });

  it("answers the newest prompt of a merged message (a prompt after a turn halted before the model said anything)", async () => {
    const provider = createScriptedProvider({ script });
    const three = await collect(
      provider.generate(
        request([{ role: "user", text: "add 2 and 3\n\nskip it\n\nadd 6 and 7", promptStarts: [0, 13, 22] }], [ADD]),
        signal,
      ),
    );
    expect(three.calls).toEqual([{ name: "add", args: { a: "6", b: 3, note: "from add 6 and 7" } }]);
    const newest = await collect(
      provider.generate(
        request([{ role: "user", text: "skip it\n\nadd 4 and 5", promptStarts: [0, 9] }], [ADD]),
        signal,
      ),
    );
    expect(newest.calls).toEqual([{ name: "add", args: { a: "4", b: 3, note: "from add 4 and 5" } }]);
  });

  it("chunks text into word groups that concatenate back to the text", () => {
    expect(chunk("one two three four five", 2)).toEqual(["one two ", "three four ", "five"]);
    expect(chunk("  lead\nnext", 1).join("")).toBe("  lead\nnext");
    expect(chunk("", 3)).toEqual([]);
  });

  it("rejects malformed scripts with the path of the problem", () => {
    expect(() => parseScript({ turns: [{ calls: [] }] })).toThrow(
      new ScriptError("turns[0].calls must be a non-empty array"),
    );
    expect(() => parseScript({ turns: [{ calls: [{ toolCalls: [{ args: {} }] }] }] })).toThrow(
      /turns\[0\]\.calls\[0\]\.toolCalls\[0\]\.name/,
    );
    expect(() => parseScript({ turns: [{ regex: "(", calls: [{}] }] })).toThrow(/turns\[0\]\.regex/);
    expect(() => parseScript("nope")).toThrow(ScriptError);
  });
});
