// Makes sure the browser suite has a Chromium to drive: $CHROMIUM_PATH, else Debian's
// /usr/bin/chromium, else installs Debian's `chromium` package (root, or passwordless sudo).
// Playwright never downloads a browser here (toolchain.md §3).
import { ensureDebianPackage, isExecutable } from "./debian-package.mjs";

const candidate = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (process.env.CHROMIUM_PATH && !isExecutable(candidate))
  fail(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file`);
const ready = ensureDebianPackage({ program: candidate, pkg: "chromium" });
if (ready !== true) fail(`${ready}; install Chromium yourself or set CHROMIUM_PATH`);
console.log(`Chromium: ${candidate}`);

function fail(message) {
  console.error(`ensure-chromium: ${message}`);
  process.exit(1);
}
