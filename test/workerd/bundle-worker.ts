import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "../..");

/**
 * Bundles a Worker entry the way wrangler does: ESM, platform=browser, the "workerd"/"worker"/
 * "browser" export conditions, the built packages (no "antigravity-source" condition). No Node builtin is
 * marked external, so a Worker that reaches one fails to bundle instead of failing in workerd.
 */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [join(root, entry)],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.text;
}
