// publint --strict and arethetypeswrong (profile esm-only: the packages are ESM only, so node10 and
// `require` type resolution are out of scope by design) on npm-packed tarballs. Offline after `npm ci`.
// `npm test` runs this as one case of scripts/consumer-suite.mjs (one pack for both); on its own:
//   node scripts/check-packages.mjs        packs into a temporary folder, checks, exits non-zero on any problem
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packPackages, root } from "./pack-packages.mjs";

const bin = (pkg, file) => join(root, "node_modules", pkg, file);

/** Runs publint and attw on each tarball, printing their output; returns the problems found. */
export function lintTarballs(tarballs) {
  const problems = [];
  const run = (label, args) => {
    console.log(`\n$ ${label}`);
    const result = spawnSync(process.execPath, args, {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, NO_COLOR: "1" },
    });
    if (result.status !== 0) problems.push(`${label} failed (exit ${result.status ?? result.signal})`);
  };
  for (const tarball of tarballs) {
    run(`publint --strict ${basename(tarball)}`, [bin("publint", "src/cli.js"), "--strict", tarball]);
    run(`attw --profile esm-only ${basename(tarball)}`, [
      bin("@arethetypeswrong/cli", "dist/index.js"),
      "--profile",
      "esm-only",
      "--format",
      "ascii",
      tarball,
    ]);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = mkdtempSync(join(tmpdir(), "antigravity-pack-"));
  let problems;
  try {
    problems = lintTarballs(packPackages(out));
  } catch (error) {
    problems = [error.message];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    console.error(`\ncheck-packages: ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log("\ncheck-packages: every package packs clean (publint --strict, arethetypeswrong esm-only)");
}
