import { afterEach, describe, expect, it } from "vitest";
import { BuiltinTool, DEFAULT_TOOLS } from "../config/builtin-tools.js";
import { READ_ONLY_TOOLS } from "../policies/policy.js";
import { createFakeHarnessTransport, type FakeHarnessTransport } from "../transport/in-memory-harness.js";
import { HarnessConfigSchema, toJson } from "../wire/index.js";
import { Agent } from "./agent.js";
import type { AgentBuilder } from "./agent-builder.js";

// The cases of upstream's agent_test.py that are new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/agent_test.py
// @992d9ead9fdfd2330c9b6b35ade7c756a21c4326, against lovicho/antigravity-sdk-python's 0.1.14
// file): 2 of its 42 cases are new, both about the policy guard (write tools with an empty policy
// list are refused), both ported: the agent starts against a harness over a transport and sends
// its configuration, which the harness reads here.

const SOURCE = "Stars1233 agent_test.py @992d9ead";

let transport: FakeHarnessTransport | undefined;
afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

/** Starts the agent against a harness that reads its configuration; returns the enabled built-ins it was sent. */
async function startedWith(build: (builder: AgentBuilder<false>) => AgentBuilder<true>): Promise<string[]> {
  let sent: Record<string, { enabled?: boolean }> = {};
  transport = createFakeHarnessTransport(async (harness) => {
    const init = await harness.readInit();
    if (init.config === undefined) throw new Error("no HarnessConfig in the init frame");
    sent = (toJson(HarnessConfigSchema, init.config) as { harnessSideTools?: typeof sent }).harnessSideTools ?? {};
    harness.respondInit({ cascadeId: "conv-0000000000000000000000000000000001" });
    await harness.closedBySdk();
  });
  const agent = build(Agent.builder().transport(transport)).build();
  const started = await agent.start({ timeoutMs: 5_000 });
  await started.stop();
  return Object.entries(sent)
    .filter(([, tool]) => tool.enabled === true)
    .map(([name]) => name)
    .sort();
}

describe(`the policy guard (${SOURCE})`, () => {
  it("test_policy_guard_deprecated_read_only_explicit_passes: search_directory and find_file need no policy", async () => {
    const on = await startedWith((b) => b.policies().enabledTools(BuiltinTool.SearchDirectory, BuiltinTool.FindFile));
    expect(on).toEqual(["find", "grepSearch"]);
  });

  it("test_policy_guard_disabling_all_default_write_tools_passes: only read-only defaults left, no policy needed", async () => {
    const readOnly = new Set<string>(READ_ONLY_TOOLS);
    const writers = DEFAULT_TOOLS.filter((tool) => !readOnly.has(tool));
    const on = await startedWith((b) => b.policies().disabledTools(...writers));
    expect(on).not.toContain("runCommand");
    expect(on).not.toContain("fileEdit");
    expect(on).not.toContain("writeToFile");
    expect(on).toContain("viewFile");
  });
});
