// `npm pack` of the four published packages, as npm would publish them: their built dist (run
// `npm run build` first; lifecycle scripts are skipped, so prepack does not build a second time).
// Shared by scripts/check-packages.mjs and scripts/consumer-suite.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));
export const PACKAGES = ["sdk", "node", "harness", "cli"];

/** How to run npm: the npm that runs this script (`npm test`) when known, else `npm` on PATH. */
export function npmCommand() {
  const cli = process.env.npm_execpath;
  return cli !== undefined && /\.c?js$/.test(cli) ? [process.execPath, cli] : ["npm"];
}

/**
 * Packs every package into `destination` and returns the tarballs' paths, in PACKAGES order.
 * Throws an Error saying what to do when a package is not built or npm pack fails.
 */
export function packPackages(destination) {
  for (const name of PACKAGES) {
    if (!existsSync(join(root, "packages", name, "dist", "index.d.ts"))) {
      throw new Error(`packages/${name}/dist is not built; run \`npm run build\` first`);
    }
  }
  const [command, ...prefix] = npmCommand();
  const workspaces = PACKAGES.flatMap((name) => ["-w", `packages/${name}`]);
  const result = spawnSync(
    command,
    [...prefix, "pack", "--ignore-scripts", "--pack-destination", destination, ...workspaces],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  if (result.status !== 0)
    throw new Error(`npm pack failed (exit ${result.status ?? result.signal}):\n${result.stderr}`);
  const files = readdirSync(destination).filter((file) => file.endsWith(".tgz"));
  return PACKAGES.map((name) => {
    const file = files.find((f) => f.startsWith(`antigravity-ts-${name}-`));
    if (file === undefined)
      throw new Error(`npm pack made no tarball for @antigravity-ts/${name} (made: ${files.join(", ") || "none"})`);
    return join(destination, file);
  });
}
