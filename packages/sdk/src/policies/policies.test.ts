import { PRECEDENCE_CASES, type PrecedenceRule } from "@antigravity-ts/test-kit";
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../step.js";
import { PolicyConfig_WorkspaceContainment, PolicyDecision } from "../wire/index.js";
import { evaluatePolicies } from "./evaluate.js";
import { toPolicyConfig } from "./policy-config.js";
import {
  allow,
  allowAll,
  allowMcp,
  askUser,
  askUserMcp,
  confirmRunCommand,
  deny,
  denyAll,
  denyMcp,
  flattenPolicies,
  readOnly,
  workspaceOnly,
  type Policy,
} from "./policy.js";

const call = (name: string, extra: Partial<ToolCall> = {}): ToolCall => ({ id: "1", name, args: {}, ...extra });
const yes = (): boolean => true;

/** A case-table rule as an SDK policy (target `server/tool`). */
function policyOf(rule: PrecedenceRule, name: string): Policy {
  const target = rule.serverName === undefined ? rule.tool : `${rule.serverName}/${rule.tool}`;
  if (rule.decision === "deny") return deny(target, undefined, { name });
  return rule.decision === "allow" ? allow(target, { name }) : askUser(target, yes, { name });
}

async function decide(policies: Policy[], toolCall: ToolCall): Promise<string> {
  const verdict = await evaluatePolicies(policies, toolCall);
  return `${verdict.decision}:${verdict.policy?.name ?? "-"}`;
}

describe("evaluatePolicies: the 9-bucket precedence", () => {
  it.each(PRECEDENCE_CASES)("shared precedence case: $title", async ({ rules, call: target, decides }) => {
    const policies = rules.map((r, index) => policyOf(r, `rule ${index}`));
    const verdict = await evaluatePolicies(
      policies,
      call(target.name, target.serverName === undefined ? {} : { serverName: target.serverName }),
    );
    expect(verdict.policy?.name).toBe(decides === undefined ? undefined : `rule ${decides}`);
    expect(verdict.decision).toBe(decides === undefined ? "allow" : rules[decides]?.decision);
  });

  it("orders exact tool < server/* < *, and within each deny < ask < allow, whatever the declaration order", async () => {
    const all = [
      allowAll(),
      askUser("*", yes, { name: "ask-any" }),
      denyAll(),
      allowMcp("gh")[0] as Policy,
      askUserMcp("gh", yes)[0] as Policy,
      denyMcp("gh")[0] as Policy,
      allow("run_command", { name: "allow-run" }),
      askUser("run_command", yes, { name: "ask-run" }),
      deny("run_command", undefined, { name: "deny-run" }),
    ];
    const order: string[] = [];
    let remaining = [...all];
    while (remaining.length > 0) {
      const verdict = await evaluatePolicies(remaining, call("run_command", { serverName: "gh" }));
      order.push(`${verdict.decision}:${verdict.policy?.tool}`);
      remaining = remaining.filter((p) => p !== verdict.policy);
    }
    expect(order).toEqual([
      "deny:run_command",
      "ask_user:run_command",
      "allow:run_command",
      "deny:gh/*",
      "ask_user:gh/*",
      "allow:gh/*",
      "deny:*",
      "ask_user:*",
      "allow:*",
    ]);
  });

  it("lets the first policy of a bucket decide, in declaration order", async () => {
    expect(
      await decide([allow("view_file", { name: "first" }), allow("view_file", { name: "second" })], call("view_file")),
    ).toBe("allow:first");
  });

  it("allows when nothing matches", async () => {
    expect(await decide([deny("run_command")], call("view_file"))).toBe("allow:-");
    expect(await decide([], call("anything"))).toBe("allow:-");
  });

  it("skips a policy whose predicate is false and denies when a predicate throws", async () => {
    const rm = deny("run_command", "no rm").when((c) =>
      String((c.args as { CommandLine?: string }).CommandLine).startsWith("rm"),
    );
    expect(await decide([rm, allowAll()], call("run_command", { args: { CommandLine: "ls" } }))).toBe(
      "allow:allow_all",
    );
    const denied = await evaluatePolicies([rm, allowAll()], call("run_command", { args: { CommandLine: "rm -rf /" } }));
    expect(denied).toMatchObject({ decision: "deny", reason: "no rm" });
    const broken = allow("view_file").when(async () => {
      throw new Error("oops");
    });
    expect(await evaluatePolicies([broken, allowAll()], call("view_file"))).toMatchObject({
      decision: "deny",
      reason: "Policy evaluation failed for 'view_file': oops",
    });
  });

  it("uses the upstream deny message unless a reason is given", async () => {
    expect(await evaluatePolicies([deny("run_command")], call("run_command"))).toMatchObject({
      reason: "Denied by policy 'run_command'.",
    });
    expect(await evaluatePolicies([denyAll("read-only session")], call("edit_file"))).toMatchObject({
      reason: "read-only session",
    });
  });

  it("matches MCP targets by serverName or by the mcp_<server>_ name prefix (longest server first)", async () => {
    const policies = [...denyMcp("git", ["push"]), ...allowMcp("github"), denyAll()];
    expect(await decide(policies, call("push", { serverName: "git" }))).toBe("deny:git/push");
    expect(await decide(policies, call("mcp_git_push"))).toBe("deny:git/push");
    expect(await decide(policies, call("mcp_github_push"))).toBe("allow:github/*");
    expect(await decide(policies, call("push"))).toBe("deny:deny_all");
  });

  it("ignores workspaceOnly markers (the harness enforces them)", async () => {
    expect(await decide([workspaceOnly(["/w"]), denyAll()], call("view_file"))).toBe("deny:deny_all");
  });

  it("readOnly() allows the read-only built-ins and nothing else; confirmRunCommand() gates run_command", async () => {
    const ro = readOnly();
    expect(await decide(ro, call("view_file"))).toBe("allow:read_only");
    expect(await decide(ro, call("finish"))).toBe("allow:read_only");
    expect(await decide(ro, call("edit_file"))).toBe("deny:deny_all");
    expect(await decide(confirmRunCommand(), call("run_command"))).toBe("deny:confirm_run_command");
    expect(await decide(confirmRunCommand(), call("edit_file"))).toBe("allow:confirm_run_command");
    expect((await evaluatePolicies(confirmRunCommand(yes), call("run_command"))).decision).toBe("ask_user");
  });
});

describe("toPolicyConfig (protocol §12)", () => {
  it("serialises in declaration order: split MCP targets, dynamic rule ids by flattened index, markers as containment", () => {
    const policies = flattenPolicies([
      workspaceOnly(["/w"]),
      confirmRunCommand(yes),
      [denyMcp("gh", ["delete_repo"]), allow("view_file").when(yes)],
    ]);
    const config = toPolicyConfig(policies);
    expect(config.workspaceContainment).toBe(PolicyConfig_WorkspaceContainment.ENABLED);
    expect(config.rules).toEqual([
      {
        tool: "run_command",
        name: "confirm_run_command",
        decision: PolicyDecision.ASK_USER,
        isDynamic: true,
        ruleId: "rule_1",
      },
      { tool: "*", name: "confirm_run_command", decision: PolicyDecision.ALLOW, isDynamic: false, ruleId: "" },
      {
        tool: "delete_repo",
        serverName: "gh",
        name: "gh/delete_repo",
        decision: PolicyDecision.DENY,
        denyReason: "Denied by policy 'gh/delete_repo'.",
        isDynamic: false,
        ruleId: "",
      },
      { tool: "view_file", name: "view_file", decision: PolicyDecision.ALLOW, isDynamic: true, ruleId: "rule_4" },
    ]);
  });

  it("leaves containment unset without a workspaceOnly marker", () => {
    expect(toPolicyConfig([allowAll()])).toEqual({
      rules: [{ tool: "*", name: "allow_all", decision: PolicyDecision.ALLOW, isDynamic: false, ruleId: "" }],
    });
  });

  it("keeps policies immutable: when() and withName() return copies", () => {
    const base = allow("view_file");
    const named = base.withName("viewer");
    const gated = base.when(yes);
    expect([base.name, named.name, gated.name]).toEqual(["view_file", "viewer", "view_file"]);
    expect(base.predicate).toBeUndefined();
    expect(gated.predicate).toBe(yes);
  });

  it("rejects unusable targets", () => {
    expect(() => allow(" ")).toThrow(expect.objectContaining({ code: "InvalidArgument" }));
    expect(() => allowMcp("a/b")).toThrow(expect.objectContaining({ code: "InvalidArgument" }));
  });
});
