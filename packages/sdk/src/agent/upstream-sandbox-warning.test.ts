import { create } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import type { SandboxStatus } from "../connection/connection.js";
import { createHarnessConnection } from "../connection/harness-connection.js";
import type { Logger } from "../telemetry/logger.js";
import { createFakeHarnessTransport, type FakeHarnessTransport } from "../transport/in-memory-harness.js";
import { HarnessConfigSchema } from "../wire/index.js";
import { warnIfSandboxUnavailable } from "./sandbox-warning.js";

// Upstream's WarnIfSandboxUnavailableTest, new since 0.1.14
// (Stars1233/antigravity-sdk-python google/antigravity/connections/local/local_connection_test.py
// @238766a385e2087fb98238d112a13fc9efc28b29): 6 cases, all ported. Upstream passes the reason as
// the log call's second argument; here it is inside the one warning line. The status comes from
// `InitializeConversationResponse.sandbox_status` (localharness.proto @257f843a), read from a raw
// frame in the last case.

const SOURCE = "Stars1233 local_connection_test.py @238766a3";

/** A HarnessConfig whose run_command is on/off and asks for the sandbox or not (upstream `_run_command_cfg`). */
const runCommandConfig = ({ enabled = true, enableSandbox = true } = {}) =>
  create(HarnessConfigSchema, { harnessSideTools: { runCommand: { enabled, enableSandbox } } });

/** The warnings logged for this config and status. */
function warnings(config: ReturnType<typeof runCommandConfig>, status: SandboxStatus | undefined): string[] {
  const seen: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (m) => seen.push(m), error: () => {} };
  warnIfSandboxUnavailable(config, status, logger);
  return seen;
}

let transport: FakeHarnessTransport | undefined;
afterEach(async () => {
  await transport?.settled();
  transport = undefined;
});

describe(`warn_if_sandbox_unavailable (${SOURCE})`, () => {
  it("test_warns_when_requested_and_unavailable: one warning naming the harness's reason", () => {
    const seen = warnings(runCommandConfig(), { available: false, unavailableReason: "no user namespaces" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("(no user namespaces)");
    expect(seen[0]).toContain("UNSANDBOXED");
  });

  it("test_warns_reason_unknown_when_reason_missing", () => {
    const seen = warnings(runCommandConfig(), { available: false, unavailableReason: "" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("(reason unknown)");
  });

  it("test_no_warning_when_available", () => {
    expect(warnings(runCommandConfig(), { available: true, unavailableReason: "" })).toEqual([]);
  });

  it("test_no_warning_when_status_unset: an older harness that sends no status", () => {
    expect(warnings(runCommandConfig(), undefined)).toEqual([]);
  });

  it("test_no_warning_when_sandbox_not_requested", () => {
    const status = { available: false, unavailableReason: "x" };
    expect(warnings(runCommandConfig({ enableSandbox: false }), status)).toEqual([]);
  });

  it("test_no_warning_when_run_command_disabled", () => {
    const status = { available: false, unavailableReason: "x" };
    expect(warnings(runCommandConfig({ enabled: false }), status)).toEqual([]);
  });

  it("reads the status from the harness's init answer as it writes it (sandboxStatus), or none", async () => {
    const statusOf = async (init: Record<string, unknown>): Promise<SandboxStatus | undefined> => {
      transport = createFakeHarnessTransport(async (harness) => {
        await harness.readInit();
        harness.sendRaw(JSON.stringify({ initializeConversationResponse: init }));
        await harness.closedBySdk();
      });
      const connection = await createHarnessConnection({ transport, config: {}, timeoutMs: 5_000 });
      const status = connection.sandboxStatus;
      await connection.disconnect();
      await transport.settled();
      transport = undefined;
      return status;
    };
    expect(
      await statusOf({ cascadeId: "c", sandboxStatus: { available: false, unavailableReason: "no user namespaces" } }),
    ).toEqual({ available: false, unavailableReason: "no user namespaces" });
    expect(await statusOf({ cascadeId: "c", sandboxStatus: {} })).toEqual({ available: false, unavailableReason: "" });
    expect(await statusOf({ cascadeId: "c" })).toBeUndefined();
  });
});
