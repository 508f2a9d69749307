import { describe, expect, it } from "vitest";
import { acpAgent } from "../acp/acp-agent.js";
import { BuiltinTool } from "../config/builtin-tools.js";
import { LOCALHARNESS_CAPABILITIES } from "../connection/capabilities.js";
import { ErrorCode, SdkError } from "../errors.js";
import { hostedAgent } from "../hosted/index.js";
import { allowAll, auto } from "../policies/policy.js";
import { Agent } from "./agent.js";
import type { AgentBuilder } from "./agent-builder.js";
import type { ConnectionStrategy } from "./connection-strategy.js";

// The 0.1.15-0.1.19 session options (issue 25) on the wires that cannot carry them: each is
// refused at build() with Unsupported naming the option and the wire, before anything connects;
// the localharness wire takes every one of them (the control row).

const NEVER = (): never => {
  throw new Error("a refused agent must not connect");
};

const WIRES: readonly [string, () => ConnectionStrategy][] = [
  ["acp", () => acpAgent({ stream: NEVER, cwd: "/w" })],
  ["interactions", () => hostedAgent({ apiKey: "k", fetch: NEVER })],
];

type Configure = (builder: AgentBuilder<false>) => AgentBuilder<boolean>;

const OPTIONS: readonly [string, Configure][] = [
  ["skills", (b) => b.skills({ directories: ["/skills"] })],
  ["skillsPaths", (b) => b.skillsPaths("/skills/a")],
  ["rules", (b) => b.rules("AGENTS.md")],
  ["toolOutputTruncation", (b) => b.toolOutputTruncation(1000)],
  ["thinkingLevel", (b) => b.thinkingLevel("high")],
  [
    "thinkingLevel",
    (b) =>
      b.models([
        {
          name: "gemini-3.8-flash",
          endpoint: { case: "geminiApiEndpoint", value: { apiKey: "k", options: { thinkingLevel: "low" } } },
        },
      ]),
  ],
  ["eval()", (b) => b.eval({ thinkingLevel: null })],
  ["lightweight()", (b) => b.lightweight()],
  ["capabilities.enabledTools (schedule)", (b) => b.enabledTools(BuiltinTool.ViewFile, BuiltinTool.Schedule)],
  [
    "capabilities.runCommand.enableDaemonCommands",
    (b) => b.capabilities({ runCommand: { enableDaemonCommands: true } }),
  ],
];

describe("options a wire cannot honour", () => {
  for (const [wire, strategy] of WIRES) {
    for (const [option, configure] of OPTIONS) {
      it(`${wire}: ${option} is refused at build() with Unsupported naming it`, () => {
        const build = () => configure(Agent.builder().connection(strategy())).allowAll().build();
        let error: unknown;
        try {
          build();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(SdkError);
        expect(error).toMatchObject({ code: ErrorCode.Unsupported, details: { option, wire } });
        expect((error as Error).message).toContain(`${option} needs`);
        expect((error as Error).message).toContain(`the ${wire} wire`);
      });
    }
  }

  for (const [option, configure] of OPTIONS) {
    it(`localharness: ${option} is taken`, () => {
      const localharness: ConnectionStrategy = { capabilities: LOCALHARNESS_CAPABILITIES, connect: NEVER };
      expect(() => configure(Agent.builder().connection(localharness)).allowAll().build()).not.toThrow();
    });
  }
});

// auto() (upstream 0.1.19 policy.auto): only a localharness harness assesses tool calls.
describe("auto policy mode on a wire without a safety assessor", () => {
  const POLICIES = [
    ["auto()", () => auto()],
    ["auto({ handler })", () => auto({ handler: () => true })],
  ] as const;
  for (const [wire, strategy] of WIRES) {
    for (const [label, make] of POLICIES) {
      it(`${wire}: ${label} is refused at build() with Unsupported naming it`, () => {
        let error: unknown;
        try {
          Agent.builder().connection(strategy()).policies(make(), allowAll()).build();
        } catch (e) {
          error = e;
        }
        expect(error).toMatchObject({
          code: ErrorCode.Unsupported,
          details: { option: "policies (auto: auto())", wire },
        });
        expect((error as Error).message).toContain("needs auto policy mode");
      });
    }
  }

  it("localharness: auto() is taken", () => {
    const localharness: ConnectionStrategy = { capabilities: LOCALHARNESS_CAPABILITIES, connect: NEVER };
    expect(() => Agent.builder().connection(localharness).policies(auto(), allowAll()).build()).not.toThrow();
  });
});
