// The `prepack` of each published package: builds its dist (JavaScript and the bundled .d.ts)
// with the repository's rollup config, so `npm pack` / `npm publish` never ship a package
// without declarations (e.g. right after `npm ci`).
//   node ../../scripts/prepack.mjs <sdk|node|harness|cli>
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const name = process.argv[2];
if (!["sdk", "node", "harness", "cli"].includes(name ?? "")) {
  console.error(`prepack: expected the package name (sdk, node, harness or cli), got ${JSON.stringify(name)}`);
  process.exit(2);
}
const root = fileURLToPath(new URL("..", import.meta.url));
const rollup = join(root, "node_modules", "rollup", "dist", "bin", "rollup");
const result = spawnSync(process.execPath, [rollup, "-c", "rollup.config.mjs"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, BUILD_ONLY: name },
});
process.exit(result.status ?? 1);
