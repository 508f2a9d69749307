import type { ClientInfo } from "./agent-options.js";

/** Version of this SDK, reported to the harness as `ClientInfo.version`. */
export const SDK_VERSION = "0.1.0";

/**
 * `ClientInfo` of this runtime (protocol §3): language "typescript", the SDK version, and the
 * runtime and OS where they can be read without Node globals.
 */
export function clientInfo(): ClientInfo {
  const scope = globalThis as {
    process?: { versions?: { node?: string }; platform?: string };
    Deno?: { version?: { deno?: string }; build?: { os?: string } };
    navigator?: { userAgent?: string };
  };
  const info: ClientInfo = { language: "typescript", version: SDK_VERSION };
  const runtime =
    scope.Deno?.version?.deno !== undefined
      ? `deno ${scope.Deno.version.deno}`
      : scope.process?.versions?.node !== undefined
        ? `node ${scope.process.versions.node}`
        : scope.navigator?.userAgent;
  if (runtime !== undefined) info.languageVersion = runtime;
  const os = scope.Deno?.build?.os ?? scope.process?.platform;
  if (os !== undefined) info.os = os === "win32" ? "windows" : os;
  return info;
}
