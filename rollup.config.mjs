// Per-package ESM builds with bundled declarations (toolchain.md: esbuild for code, rollup-plugin-dts
// for types), then the browser example bundled against the built SDK.
//   npx rollup -c rollup.config.mjs                      everything
//   BUILD_ONLY=sdk,harness npx rollup -c rollup.config.mjs   a subset (names in scripts/build-entries.mjs, plus "examples")
//   BUILD_JS_ONLY=1 npx rollup -c rollup.config.mjs         JavaScript only, no declarations (ensure-dist)
import { existsSync, rmSync } from "node:fs";
import { build as esbuildBuild } from "esbuild";
import esbuild from "rollup-plugin-esbuild";
import { dts } from "rollup-plugin-dts";
import { packages } from "./scripts/build-entries.mjs";
import { writeHarnessCodeCache } from "./scripts/write-harness-code-cache.mjs";

/** Examples bundled for their runtime after the packages (rollup runs an array of configs in order). */
const examples = {
  "browser-chat": {
    input: "docs/examples/browser-chat/src/main.ts",
    file: "docs/examples/browser-chat/dist/app.js",
    tsconfig: "docs/examples/browser-chat/tsconfig.json",
  },
};

/**
 * Our own sources are bundled; everything else stays an import: dependencies, node builtins,
 * sibling packages (`@antigravity-ts/sdk` is a dependency of node and harness, not a copy) and the
 * package's own `imports` map (`#default-websocket`: resolved per runtime when the package is used).
 */
const external = (id) =>
  id.startsWith("node:") || id.startsWith("#") || /^(@[a-z0-9-]+\/)?[a-z0-9][\w.-]*(\/.*)?$/i.test(id);

const only = process.env.BUILD_ONLY?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const selected = (name) => !only || only.includes(name);

// Start from an empty dist so no stale chunk survives (the no-node check scans every file in dist).
if (!process.env.ROLLUP_WATCH) {
  for (const name of Object.keys(packages).filter(selected))
    rmSync(`packages/${name}/dist`, { recursive: true, force: true });
  if (selected("examples"))
    for (const { file } of Object.values(examples))
      rmSync(file.replace(/\/[^/]+$/, ""), { recursive: true, force: true });
}

/** Fails the build with a clear message instead of rollup's "could not resolve entry module". */
function requireEntries(input) {
  const missing = Object.values(input).filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`rollup.config.mjs: entry file(s) missing: ${missing.join(", ")}`);
  return input;
}

/**
 * Worker threads' entries: `new URL("./x.ts", import.meta.url)` in a source (the harness's
 * tools/tool-pool.ts starts tools/tool-worker.ts so) emits x.ts as an entry chunk of its own,
 * `dist/x.js`, and points the expression at it. Only the URL changes, within its line; the same
 * text in a comment (a line starting with `*` or `//` before it) is left alone.
 */
function workerUrls() {
  const pattern = /new URL\((["'])(\.{1,2}\/[^"']+)\.ts\1, import\.meta\.url\)/g;
  return {
    name: "worker-urls",
    async transform(code, id) {
      const inComment = (index) => /^\s*(\*|\/\*)|\/\//.test(code.slice(code.lastIndexOf("\n", index) + 1, index));
      const matches = [...code.matchAll(pattern)].filter((match) => !inComment(match.index));
      if (matches.length === 0) return null;
      let out = code;
      for (const [expression, , relative] of matches) {
        const resolved = await this.resolve(`${relative}.ts`, id);
        if (resolved === null) this.error(`${id}: worker entry ${relative}.ts not found`);
        const ref = this.emitFile({
          type: "chunk",
          id: resolved.id,
          fileName: `${relative.slice(relative.lastIndexOf("/") + 1)}.js`,
        });
        out = out.replace(expression, `new URL(import.meta.ROLLUP_FILE_URL_${ref})`);
      }
      return { code: out, map: null };
    },
  };
}

/**
 * The `bundled` entry of scripts/build-entries.mjs (the harness's `bin`), built by esbuild after
 * rollup wrote the package: `dist/bin.bundle.cjs`, one CommonJS file with every dependency inlined
 * (the SDK from its sources) but the two large ones only some sessions need; `dist/bin.cjs`, the
 * executable, its loader (src/bin-loader.ts), which runs it from V8's code cache,
 * `dist/bin.bundle.cjs.cache`, written by starting it once (scripts/write-harness-code-cache.mjs;
 * packages/harness/src/code-cache.ts says why). Modules the sources import dynamically (providers,
 * the schema) are in the file but evaluated on first use. Worker entries point at the ones rollup
 * emitted for the package (`dist/tool-worker.js`, `dist/command-watchdog.js`).
 */
function bundledEntries(dir, bundled) {
  const workerPattern = /new URL\((["'])(\.{1,2}\/[^"']+)\.ts\1, import\.meta\.url\)/g;
  return {
    name: "bundled-entries",
    async writeBundle() {
      const [[out, src], ...others] = bundled;
      if (out !== "bin" || others.length > 0)
        throw new Error("bundledEntries: src/bin-loader.ts runs dist/bin.bundle.cjs, so the one bundled entry is bin");
      const commonJs = {
        outdir: `${dir}/dist`,
        outExtension: { ".js": ".cjs" },
        bundle: true,
        format: "cjs",
        platform: "node",
        target: "node20",
        legalComments: "none",
        logLevel: "warning",
      };
      await esbuildBuild({ ...commonJs, entryPoints: { bin: `${dir}/src/bin-loader.ts` } });
      await esbuildBuild({
        ...commonJs,
        entryPoints: { "bin.bundle": `${dir}/${src}` },
        // The two large dependencies only some sessions load (re2js for find_file/search_directory
        // patterns, protobuf-es for a frame the fast reader leaves undecided): required from
        // node_modules on first use instead of read, hashed and deserialized at every start.
        external: ["re2js", "@bufbuild/protobuf", "@bufbuild/protobuf/*"],
        conditions: ["antigravity-source"],
        tsconfig: `${dir}/tsconfig.json`,
        sourcemap: true,
        // import.meta in CommonJS: the file's own URL (worker entries and createRequire resolve from it), and resolve().
        define: { "import.meta.url": "__importMetaUrl", "import.meta.resolve": "__importMetaResolve" },
        banner: {
          js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;\nconst __importMetaResolve = (specifier) => require("node:url").pathToFileURL(require.resolve(specifier)).href;',
        },
        // Whitespace and syntax minified (names kept, so stack traces still read): less to read at start-up.
        minifyWhitespace: true,
        minifySyntax: true,
        plugins: [
          {
            // ws's optional native add-ons (not dependencies of the harness): a require() that fails at
            // once instead of a search of every node_modules folder up to the root at start-up.
            name: "no-optional-addons",
            setup(build) {
              build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, ({ path }) => ({
                path,
                namespace: "absent-addon",
              }));
              build.onLoad({ filter: /.*/, namespace: "absent-addon" }, ({ path }) => ({
                contents: `throw new Error(${JSON.stringify(`${path} is not bundled`)});`,
                loader: "js",
              }));
            },
          },
          {
            // ws loads https and tls (for its client) and zlib (for permessage-deflate) when it is
            // imported; the harness only serves, without compression, so they load on first use
            // instead of at every start (a lazy require behind a proxy; nothing else changes).
            name: "lazy-ws-builtins",
            setup(build) {
              build.onLoad({ filter: /[\\/]ws[\\/]lib[\\/](websocket|permessage-deflate)\.js$/ }, async ({ path }) => {
                const { readFile } = await import("node:fs/promises");
                const code = await readFile(path, "utf8");
                const contents = code.replace(
                  /^const (https|tls|zlib) = require\('(https|tls|zlib)'\);$/gm,
                  (_, name, module) =>
                    `let ${name}Loaded; const ${name} = new Proxy({}, { get: (_, key) => (${name}Loaded ??= require('${module}'))[key] });`,
                );
                return { contents, loader: "js" };
              });
            },
          },
          {
            name: "worker-urls",
            setup(build) {
              build.onLoad({ filter: /\/src\/.*\.ts$/ }, async ({ path }) => {
                const { readFile } = await import("node:fs/promises");
                const code = await readFile(path, "utf8");
                if (!workerPattern.test(code)) return undefined;
                workerPattern.lastIndex = 0;
                const rewritten = code.replace(
                  workerPattern,
                  (_, quote, relative) =>
                    `new URL(${quote}./${relative.slice(relative.lastIndexOf("/") + 1)}.js${quote}, import.meta.url)`,
                );
                return { contents: rewritten, loader: "ts" };
              });
            },
          },
        ],
      });
      await writeHarnessCodeCache(`${dir}/dist/bin.cjs`, `${dir}/dist/bin.bundle.cjs.cache`);
    },
  };
}

/**
 * The SDK's chunks: everything the root entry reaches through static imports is one `core` chunk,
 * which an app's bundler tree-shakes; rollup places the rest, so the code `Agent` imports only when
 * an agent uses it (hooks, triggers, telemetry, continuations, `resume()`), the lazy full decoder's
 * schema and the other entries' own modules stay out of it. Rollup's default merged modules that
 * different entries reach, which put lazily loaded code into a chunk every app loads at start (a
 * bundler cannot split a file); one chunk per module avoids that too but makes Node read ~120
 * files to import the SDK (about 50 ms more). docs/bundle-size.md.
 */
function sdkChunks(dir) {
  const sources = `${process.cwd()}/${dir}/src/`;
  let core;
  return (id, { getModuleInfo }) => {
    if (!id.startsWith(sources)) return undefined;
    if (core === undefined) {
      // The root entry's static import closure (dynamic imports are where it stops).
      core = new Set();
      const pending = [`${sources}index.ts`];
      while (pending.length > 0) {
        const next = pending.pop();
        if (core.has(next) || !next.startsWith(sources)) continue;
        core.add(next);
        pending.push(...(getModuleInfo(next)?.importedIds ?? []));
      }
    }
    const barrel = id.endsWith("/index.ts");
    return core.has(id) && !barrel ? "core" : undefined;
  };
}

/** Generated protobuf code imports itself in cycles by design; any other warning is shown. */
function onwarn(warning, warn) {
  if (warning.code === "CIRCULAR_DEPENDENCY" && warning.ids?.some((id) => id.includes("/src/gen/"))) return;
  warn(warning);
}

const packageConfigs = Object.entries(packages)
  .filter(([name]) => selected(name))
  .flatMap(([name, { entries, noTypes = [], bundled = [] }]) => {
    const dir = `packages/${name}`;
    const input = requireEntries(
      Object.fromEntries(
        Object.entries(entries)
          .filter(([out]) => !bundled.includes(out))
          .map(([out, src]) => [out, `${dir}/${src}`]),
      ),
    );
    const bundledInput = Object.entries(entries).filter(([out]) => bundled.includes(out));
    requireEntries(Object.fromEntries(bundledInput.map(([out, src]) => [out, `${dir}/${src}`])));
    const declarationInput = Object.fromEntries(Object.entries(input).filter(([out]) => !noTypes.includes(out)));
    return [
      {
        input,
        external,
        onwarn,
        // Tree-shakable ESM: one file per entry, shared code in chunks, `sideEffects: false` in package.json.
        output: {
          dir: `${dir}/dist`,
          format: "esm",
          entryFileNames: "[name].js",
          chunkFileNames: "chunks/[name]-[hash].js",
          sourcemap: true,
          generatedCode: "es2015",
          ...(name === "sdk" ? { manualChunks: sdkChunks(dir) } : {}),
        },
        plugins: [
          workerUrls(),
          esbuild({ target: "es2022", tsconfig: `${dir}/tsconfig.json`, sourceMap: true }),
          ...(bundledInput.length > 0 ? [bundledEntries(dir, bundledInput)] : []),
        ],
      },
      ...(process.env.BUILD_JS_ONLY
        ? []
        : [
            {
              input: declarationInput,
              external,
              onwarn,
              output: {
                dir: `${dir}/dist`,
                format: "esm",
                entryFileNames: "[name].d.ts",
                chunkFileNames: "chunks/[name]-[hash].d.ts",
              },
              plugins: [dts({ tsconfig: `${dir}/tsconfig.json` })],
            },
          ]),
    ];
  });

/**
 * Resolves the page's package imports the way a browser bundler does: each bare specifier is
 * pre-bundled by esbuild from the built dist with the "browser" condition (isomorphic-ws → the
 * global WebSocket) and handed to rollup as one ES module. (rollup-plugin-esbuild's optimizeDeps
 * does the same but loses scoped package names.)
 */
function browserDependencies() {
  const prefix = "\0browser-dep:";
  return {
    name: "browser-dependencies",
    resolveId(source, importer) {
      if (importer === undefined || source.startsWith(".") || source.startsWith("/") || source.startsWith("\0"))
        return null;
      return prefix + source;
    },
    async load(id) {
      if (!id.startsWith(prefix)) return null;
      const specifier = id.slice(prefix.length);
      const result = await esbuildBuild({
        stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir: process.cwd(), loader: "js" },
        bundle: true,
        write: false,
        format: "esm",
        platform: "browser",
        conditions: ["browser"],
        target: "es2022",
        logLevel: "silent",
      });
      return result.outputFiles[0].text;
    },
  };
}

// The browser example, bundled and minified for the browser against the built SDK.
const exampleConfigs = selected("examples")
  ? Object.values(examples).map(({ input, file, tsconfig }) => ({
      input: requireEntries({ app: input }).app,
      // A page cannot import anything at run time: an unresolved import is a build error, not a warning.
      onwarn(warning, warn) {
        if (warning.code === "UNRESOLVED_IMPORT")
          throw new Error(`${input}: cannot bundle ${warning.exporter ?? warning.message}`);
        onwarn(warning, warn);
      },
      output: { file, format: "esm", sourcemap: true },
      plugins: [browserDependencies(), esbuild({ target: "es2022", tsconfig, minify: true, sourceMap: true })],
    }))
  : [];

export default [...packageConfigs, ...exampleConfigs];
