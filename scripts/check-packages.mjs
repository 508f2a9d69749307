// The packages as they would be published: packs each one (its built dist, `npm run build` first;
// lifecycle scripts skipped, so no rebuild) into a temporary folder and checks the tarballs with
// publint --strict and arethetypeswrong (profile esm-only: the packages are ESM only, so node10 and
// `require` are out of scope by design). Offline after `npm ci`. Exits non-zero on any problem.
//   node scripts/check-packages.mjs
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const packages = ["sdk", "node", "harness"];
const bin = (pkg, file) => join(root, "node_modules", pkg, file);
const npmCli = process.env.npm_execpath;

for (const name of packages) {
  if (!existsSync(join(root, "packages", name, "dist", "index.d.ts"))) {
    console.error(`check-packages: packages/${name}/dist is not built; run \`npm run build\` first`);
    process.exit(1);
  }
}

const out = mkdtempSync(join(tmpdir(), "antigravity-pack-"));
const failures = [];
try {
  const workspaces = packages.flatMap((name) => ["-w", `packages/${name}`]);
  const npm = npmCli !== undefined && npmCli.endsWith(".js") ? [process.execPath, npmCli] : ["npm"];
  run("npm pack", npm[0], [...npm.slice(1), "pack", "--ignore-scripts", "--pack-destination", out, ...workspaces]);
  const tarballs = readdirSync(out).filter((file) => file.endsWith(".tgz")).map((file) => join(out, file));
  if (tarballs.length !== packages.length) failures.push(`npm pack made ${tarballs.length} tarballs, expected ${packages.length}`);
  for (const tarball of tarballs) {
    run(`publint --strict ${tarball}`, process.execPath, [bin("publint", "src/cli.js"), "--strict", tarball]);
    run(`attw ${tarball}`, process.execPath, [bin("@arethetypeswrong/cli", "dist/index.js"), "--profile", "esm-only", "--format", "ascii", tarball]);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\ncheck-packages: ${failures.length} problem(s):\n${failures.map((f) => `  - ${f}`).join("\n")}`);
  process.exit(1);
}
console.log(`\ncheck-packages: ${packages.length} packages pack clean (publint --strict, arethetypeswrong esm-only)`);

function run(label, command, args) {
  console.log(`\n$ ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, NO_COLOR: "1" } });
  if (result.status !== 0) failures.push(`${label} failed (exit ${result.status ?? result.signal})`);
}
