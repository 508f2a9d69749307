import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Agent, AgentBuilder, ErrorCode, SdkError } from "../index.js";

const root = join(import.meta.dirname, "../../../..");

describe("build() without a policy", () => {
  it("fails in plain JavaScript with InvalidArgument naming the fix", () => {
    const untyped = Agent.builder().model("m") as unknown as { build(): unknown };
    let error: unknown;
    try {
      untyped.build();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SdkError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidArgument });
    expect((error as SdkError).message).toContain(
      "call allowAll(), readOnly(), confirmRunCommand() or policies(...) before build()",
    );
  });

  it("builds once any policy method was called, policies() with none included", () => {
    expect(Agent.builder().readOnly().build()).toBeInstanceOf(Agent);
    expect(Agent.builder().policies().build()).toBeInstanceOf(Agent);
    const chosen: AgentBuilder<true> = Agent.builder().allowAll().model("m");
    expect(chosen.build()).toBeInstanceOf(Agent);
  });

  it("is a compile error on the sources whose text names the fix", async () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const output = await promisify(execFile)(
      process.execPath,
      [tsc, "-p", "test/built/forgotten-policy/tsconfig.source.json", "--pretty", "false"],
      { cwd: root },
    ).then(
      () => "compiled",
      (error: { stdout?: string }) => error.stdout ?? "",
    );
    expect(output).toContain(
      "error TS2684: The 'this' context of type 'AgentBuilder<false>' is not assignable to method's 'this' of type 'CallAllowAllReadOnlyOrPoliciesBeforeBuild'",
    );
  }, 60_000);
});
