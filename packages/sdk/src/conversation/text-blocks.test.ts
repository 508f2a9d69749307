import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, type InMemoryHarness } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, Transcript, allowAll, defineTool, type AssistantMessage, type ChatEvent } from "../index.js";

// Issue 26 item 3: the text of each model call keeps its boundaries. The reference harness (in
// memory, its offline demo model) answers in two model calls: "Let me look …" then, after the
// tools, "Here is what I found …". `text` stays upstream's concatenation; `textBlocks`, the
// events' stepIndex and the Transcript's blocks keep the calls apart.

let workspace: string;
let harness: InMemoryHarness;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "text-blocks-"));
  harness = createInMemoryHarness({ workspace });
});

afterAll(async () => {
  await harness?.close();
  await rm(workspace, { recursive: true, force: true });
});

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  } as const,
  call: ({ a, b }) => a + b,
});

describe("the text of each model call", () => {
  it("ChatResponse.textBlocks: one block per model call, in order; text is their concatenation (as upstream)", async () => {
    await using agent = await Agent.builder()
      .transport(harness)
      .tool(add)
      .policies(allowAll())
      .build()
      .start({ timeoutMs: 30_000 });
    const stream = agent.chat("Hello there");
    const events: ChatEvent[] = [];
    for await (const event of stream.events()) events.push(event);
    const response = await stream.final();

    expect(response.textBlocks.length).toBe(2);
    const [first, second] = response.textBlocks;
    expect(first?.text).toContain("Let me look at the workspace");
    expect(second?.text).toContain("Here is what I found");
    expect(first?.stepIndex).not.toBe(second?.stepIndex);
    expect(response.text).toBe(response.textBlocks.map((block) => block.text).join(""));
    // The glue the issue saw: no separator between the calls in `text`, a boundary in the blocks.
    expect(response.text).toContain("gave me.Here is what I found");

    // The events carry the same boundaries: the text events of each call share its stepIndex.
    const byStep = new Map<number, string>();
    for (const event of events)
      if (event.type === "text") byStep.set(event.stepIndex, (byStep.get(event.stepIndex) ?? "") + event.text);
    expect([...byStep.entries()]).toEqual(response.textBlocks.map((block) => [block.stepIndex, block.text]));

    // The Transcript draws each call's text as its own block.
    const transcript = new Transcript();
    transcript.begin("Hello there");
    for (const event of events) transcript.apply(event);
    const message = transcript.state.messages.at(-1) as AssistantMessage;
    const texts = message.blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
    expect(texts).toEqual(response.textBlocks.map((block) => block.text));
  });

  it("blocks stay apart in the Transcript when no tool card separates them", () => {
    const transcript = new Transcript();
    transcript.begin("hi");
    transcript.apply({ type: "text", stepIndex: 3, text: "Checking the weather." });
    transcript.apply({ type: "text", stepIndex: 5, text: "Converting." });
    const message = transcript.state.messages.at(-1) as AssistantMessage;
    expect(message.blocks).toEqual([
      { type: "text", stepIndex: 3, text: "Checking the weather." },
      { type: "text", stepIndex: 5, text: "Converting." },
    ]);
  });
});
