// Runs Biome, the repo's one formatter and linter (biome.jsonc), from its platform package.
// The npm registry this project installs from serves Biome's Linux builds only, so the root
// package.json lists those as optional dependencies instead of `@biomejs/biome` (whose lock
// entry would need every platform's build); elsewhere this says so and exits 0 for `check`
// runs, so a contributor on another OS is not blocked (CI runs on Linux and does check).
//   node scripts/biome.mjs ci .          (what `npm run lint` and `npm test` run)
//   node scripts/biome.mjs format --write .
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const platformPackage = `@biomejs/cli-${process.platform}-${process.arch}`;

let binary;
try {
  binary = join(
    dirname(require.resolve(`${platformPackage}/package.json`)),
    process.platform === "win32" ? "biome.exe" : "biome",
  );
} catch {
  binary = undefined;
}
if (binary === undefined || !existsSync(binary)) {
  console.error(
    `biome: ${platformPackage} is not installed (the registry serves Biome's Linux builds only); formatting and lint checks skipped on this machine`,
  );
  process.exit(0);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
process.exit(result.status ?? 1);
