// Makes sure the browser suite has a Chromium to drive: $CHROMIUM_PATH, else Debian's
// /usr/bin/chromium, else installs Debian's `chromium` package (root, or passwordless sudo).
// Playwright never downloads a browser here (toolchain.md §3).
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

const candidate = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (isExecutable(candidate)) {
  console.log(`Chromium: ${candidate}`);
  process.exit(0);
}
if (process.env.CHROMIUM_PATH) fail(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file`);

const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
console.log("Chromium is missing: installing Debian's chromium package (apt-get)");
run([...sudo, "apt-get", "update"]);
run([...sudo, "apt-get", "install", "-y", "--no-install-recommends", "chromium"]);
if (!isExecutable(candidate)) fail("apt-get finished but /usr/bin/chromium is still missing");
console.log(`Chromium: ${candidate}`);

function run(argv) {
  const [cmd, ...args] = argv;
  const result = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (result.status !== 0) {
    fail(`\`${argv.join(" ")}\` failed (${result.error?.message ?? `exit code ${result.status}`}); install Chromium yourself or set CHROMIUM_PATH`);
  }
}

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fail(message) {
  console.error(`ensure-chromium: ${message}`);
  process.exit(1);
}
