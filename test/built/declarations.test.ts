import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

// The bundled .d.ts files as a user's project sees them (no "antigravity-source" condition): the examples and
// a Node consumer must compile against packages/*/dist/*.d.ts, with lib checking on, and a type
// error the SDK promises (build() before a policy) must still be an error.
describe("bundled declarations", () => {
  it("compile the examples and a Node consumer without the sources", async () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const result = await promisify(execFile)(
      process.execPath,
      [tsc, "-p", "test/built/types/tsconfig.json", "--pretty", "false"],
      { cwd: root },
    ).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? -1,
        output: `${error.stdout ?? ""}${error.stderr ?? ""}`,
      }),
    );
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  it("name the fix when build() is called without a policy", async () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const output = await promisify(execFile)(
      process.execPath,
      [tsc, "-p", "test/built/forgotten-policy/tsconfig.json", "--pretty", "false"],
      { cwd: root },
    ).then(
      () => "compiled",
      (error: { stdout?: string }) => error.stdout ?? "",
    );
    expect(output).toContain("forgotten-policy.ts(5,1): error TS2684");
    expect(output).toContain("'CallAllowAllReadOnlyOrPoliciesBeforeBuild'");
  }, 60_000);
});
