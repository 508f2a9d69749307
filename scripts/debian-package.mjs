// Installs a Debian package a test suite needs when its program is missing (root, or
// passwordless sudo): `npm test` brings what it needs on a fresh machine. Used by
// ensure-chromium.mjs and ensure-bubblewrap.mjs.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

/**
 * Makes sure `program` (an absolute path) is executable, installing Debian's `pkg` with apt-get
 * when it is not. Returns true when the program is there afterwards; otherwise the reason.
 */
export function ensureDebianPackage({ program, pkg }) {
  if (isExecutable(program)) return true;
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  console.log(`${program} is missing: installing Debian's ${pkg} package (apt-get)`);
  for (const argv of [
    [...sudo, "apt-get", "update"],
    [...sudo, "apt-get", "install", "-y", "--no-install-recommends", pkg],
  ]) {
    const [cmd, ...args] = argv;
    const result = spawnSync(cmd, args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0)
      return `\`${argv.join(" ")}\` failed (${result.error?.message ?? `exit code ${result.status}`})`;
  }
  return isExecutable(program) ? true : `apt-get finished but ${program} is still missing`;
}

export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
