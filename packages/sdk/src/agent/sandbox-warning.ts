import type { SandboxStatus } from "../connection/connection.js";
import type { Logger } from "../telemetry/logger.js";
import type { HarnessConfig } from "../wire/index.js";

/**
 * Upstream's start-up warning (local_connection.py `warn_if_sandbox_unavailable`, 0.1.18): the
 * sandbox was asked for, run_command is on, and the harness says it cannot enforce one. Silent
 * when the harness says nothing (an older harness).
 */
export function warnIfSandboxUnavailable(
  config: HarnessConfig,
  status: SandboxStatus | undefined,
  logger: Logger | undefined,
): void {
  const run = config.harnessSideTools?.runCommand;
  if (run?.enabled !== true || run.enableSandbox !== true || status === undefined || status.available) return;
  logger?.warn(
    `enable_sandbox=True but the OS sandbox is unavailable in this harness environment (${status.unavailableReason || "reason unknown"}); run_command will execute UNSANDBOXED.`,
  );
}
