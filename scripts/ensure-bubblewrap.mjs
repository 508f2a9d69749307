// Makes sure the run_command sandbox suite (test/node/e2e/command-sandbox.test.ts) can run:
// installs Debian's `bubblewrap` package when /usr/bin/bwrap is missing (root, or passwordless
// sudo). Where it cannot, it says why and exits 0: the sandbox's tests then check that the
// harness reports `sandbox_status.available: false` with the reason instead.
import { ensureDebianPackage } from "./debian-package.mjs";

if (process.platform !== "linux") {
  console.log("bubblewrap: not on Linux; the sandbox suite checks the unavailable status only");
  process.exit(0);
}
const ready = ensureDebianPackage({ program: "/usr/bin/bwrap", pkg: "bubblewrap" });
console.log(
  ready === true
    ? "bubblewrap: /usr/bin/bwrap"
    : `bubblewrap: not available (${ready}); the sandbox suite checks the unavailable status only`,
);
