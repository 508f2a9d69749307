import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "@antigravity-ts/sdk";
import { HARNESS_PATH_ENV, discoverHarnessBinary, findBundledHarness } from "./discover-harness.js";
import { ensureReferenceHarness } from "@antigravity-ts/test-kit";

const dir = mkdtempSync(join(tmpdir(), "discover-"));
const onPath = join(dir, process.platform === "win32" ? "localharness.exe" : "localharness");
writeFileSync(onPath, "#!/bin/sh\nexit 0\n");
chmodSync(onPath, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("discoverHarnessBinary", () => {
  it("prefers the option, then the agent env, then the process env", () => {
    const processEnv = { [HARNESS_PATH_ENV]: "/from/process", PATH: dir };
    const env = { [HARNESS_PATH_ENV]: "/from/agent" };
    expect(discoverHarnessBinary({ harnessPath: "/from/option", env, processEnv })).toMatchObject({
      path: "/from/option",
      source: "option",
    });
    expect(discoverHarnessBinary({ env, processEnv })).toMatchObject({ path: "/from/agent", source: "agent-env" });
    expect(discoverHarnessBinary({ processEnv })).toMatchObject({ path: "/from/process", source: "process-env" });
  });

  it("finds localharness on PATH before the bundled harness", () => {
    expect(
      discoverHarnessBinary({ processEnv: { PATH: `/nonexistent${process.platform === "win32" ? ";" : ":"}${dir}` } }),
    ).toEqual({ path: onPath, source: "path", isJavaScript: false });
  });

  it("falls back to the bundled reference harness, run under node", { timeout: 300_000 }, async () => {
    const built = await ensureReferenceHarness();
    const bundled = findBundledHarness();
    expect(bundled === undefined ? undefined : realpathSync(bundled)).toBe(realpathSync(built));
    expect(discoverHarnessBinary({ processEnv: { PATH: "" } })).toMatchObject({
      source: "bundled",
      isJavaScript: true,
    });
  });

  it("fails with FailedPrecondition (not retryable) and what to do when nothing is found and the fallback is off", () => {
    let error: unknown;
    try {
      discoverHarnessBinary({ processEnv: { PATH: "" }, allowBundled: false });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(ErrorCode.FailedPrecondition);
    expect((error as SdkError).retryable).toBe(false);
    expect((error as SdkError).message).toContain("ANTIGRAVITY_HARNESS_PATH");
    expect((error as SdkError).message).toContain("install @antigravity-ts/harness");
    expect((error as SdkError).message).toContain("localharness on PATH");
  });
});
