// Per-package ESM builds with bundled declarations (toolchain.md: esbuild for code, rollup-plugin-dts for types).
import esbuild from "rollup-plugin-esbuild";
import { dts } from "rollup-plugin-dts";

/** Entry points per package: output name -> source file. */
const packages = {
  sdk: { index: "src/index.ts", wire: "src/wire/index.ts", testing: "src/testing/index.ts" },
  node: { index: "src/index.ts", cli: "src/cli.ts", "not-node": "src/not-node.ts" },
  harness: { index: "src/index.ts", bin: "src/bin.ts" },
};

/** Everything that is not our own source stays an import: dependencies, node builtins, sibling packages. */
const external = (id) => id.startsWith("node:") || /^[@a-z]/.test(id) && !id.startsWith("@/") ;

const only = process.env.BUILD_ONLY?.split(",");

export default Object.entries(packages)
  .filter(([name]) => !only || only.includes(name))
  .flatMap(([name, entries]) => {
    const dir = `packages/${name}`;
    const input = Object.fromEntries(Object.entries(entries).map(([out, src]) => [out, `${dir}/${src}`]));
    const declarationInput = Object.fromEntries(Object.entries(input).filter(([out]) => out !== "bin" && out !== "cli" && out !== "not-node"));
    return [
      {
        input,
        external,
        output: { dir: `${dir}/dist`, format: "esm", entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js", sourcemap: true },
        plugins: [esbuild({ target: "es2022", tsconfig: `${dir}/tsconfig.json` })],
        onwarn(warning, warn) { if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning); },
      },
      {
        input: declarationInput,
        external,
        output: { dir: `${dir}/dist`, format: "esm", entryFileNames: "[name].d.ts", chunkFileNames: "chunks/[name]-[hash].d.ts" },
        plugins: [dts({ tsconfig: `${dir}/tsconfig.json` })],
      },
    ];
  });
