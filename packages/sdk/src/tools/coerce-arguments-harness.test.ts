import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInMemoryHarness, parseScript, type InMemoryHarness } from "@antigravity-ts/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, defineTool } from "../index.js";

// A model that sends "1" and "2" for integer parameters (the reference harness's scripted model
// plays one): the tool runs with 1 and 2, as upstream's ToolRunner._coerce_args runs it; a
// strictArguments tool answers the model with the validation error instead.

describe("tool arguments coerced as upstream's ToolRunner does, against the reference harness", () => {
  let workspace = "";
  let harness: InMemoryHarness;
  const parameters = {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" } },
    required: ["a", "b"],
  } as const;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "antigravity-coerce-"));
    const call = (name: string) => ({
      calls: [{ toolCalls: [{ name, args: { a: "1", b: "2" } }] }, { text: "{{result}}" }],
    });
    harness = createInMemoryHarness({
      workspace,
      script: parseScript({
        turns: [
          { match: "lax", ...call("add") },
          { match: "strict", ...call("add_strict") },
        ],
      }),
    });
  });

  afterAll(async () => {
    await harness.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('runs add with 1 and 2 for "1" and "2"; the strict tool never runs and the model reads why', async () => {
    const seen: unknown[] = [];
    const add = defineTool({
      name: "add",
      description: "Adds",
      parameters,
      call: (args) => (seen.push(args), { sum: args.a + args.b }),
    });
    const strict = defineTool({
      name: "add_strict",
      description: "Adds",
      parameters,
      strictArguments: true,
      call: (args) => (seen.push(args), { sum: args.a + args.b }),
    });
    const agent = await Agent.builder()
      .transport(harness)
      .workspaces(workspace)
      .tool(add, strict)
      .allowAll()
      .build()
      .start();
    try {
      const lax = await agent.chatToCompletion("lax");
      expect(seen).toEqual([{ a: 1, b: 2 }]);
      expect(lax.text).toContain('"sum":3');
      const refused = await agent.chatToCompletion("strict");
      expect(seen).toHaveLength(1);
      expect(refused.text).toContain("Invalid arguments for tool add_strict: $.a must be integer");
    } finally {
      await agent.stop();
    }
  });
});
