import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

// The bundled harness (dist/bin.bundle.cjs) runs from V8's code cache (dist/bin.bundle.cjs.cache): the bytecode
// of every function its start and a first session ran, so the harness neither parses its source
// nor compiles those functions again (Node 20 keeps no code cache for modules). The build writes the
// cache by starting the harness once (scripts/write-harness-code-cache.mjs). V8 refuses a cache
// made by another V8 version or with other flags; V8 checks only the source's length, so the cache
// starts with the SHA-256 of the source it was made from, and one made from other source is not
// used. Without a usable cache the source is compiled as any script, and the harness writes a
// fresh cache as it exits, where it may (the package folder may be read-only: then it does not).

/** Bytes of the source hash that starts a cache file. */
const HASH_BYTES = 32;
/** A cache file past this is not read (the real one is well under 1 MiB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** How the script was compiled: from the cache, or without one (none there, or unusable). */
export type CodeCacheUse = "used" | "absent" | "refused";

/** A CommonJS file compiled in Node's module wrapper, with what became of its code cache. */
export interface CompiledScript {
  /** The CommonJS file compiled. */
  readonly file: string;
  readonly script: Script;
  readonly use: CodeCacheUse;
  /** SHA-256 of the source, the first bytes of its cache file. */
  readonly hash: Buffer;
}

/** Compiles `file` as a CommonJS module, from `cacheFile` when that holds V8's code cache of this very source. */
export function compileWithCodeCache(file: string, cacheFile = `${file}.cache`): CompiledScript {
  const source = readRegularFile(file, Number.POSITIVE_INFINITY);
  if (source === undefined) throw new Error(`${file} is missing or not a regular file`);
  const hash = createHash("sha256").update(source).digest();
  const cache = readRegularFile(cacheFile, MAX_CACHE_BYTES);
  const cachedData =
    cache !== undefined && cache.length > HASH_BYTES && cache.subarray(0, HASH_BYTES).equals(hash)
      ? cache.subarray(HASH_BYTES)
      : undefined;
  // An ASCII source (esbuild's output, bin.cjs) becomes a one-byte string without UTF-8 decoding (5 ms for bin.cjs).
  const script = new Script(wrap(isAscii(source) ? source.toString("latin1") : source.toString("utf8")), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const use: CodeCacheUse =
    cachedData === undefined
      ? cache === undefined
        ? "absent"
        : "refused"
      : script.cachedDataRejected === true
        ? "refused"
        : "used";
  return { file, script, use, hash };
}

/** Runs a compiled module as Node would (`exports`, `require`, `module`, `__filename`, `__dirname`); returns its `module.exports`. */
export function evaluate({ file, script }: CompiledScript): unknown {
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  return module.exports;
}

/**
 * Runs the CommonJS file `file`, compiled by {@link compileWithCodeCache}, with {@link evaluate};
 * without a usable cache, a fresh one is written as the process exits. Returns how the cache was used.
 */
export function runWithCodeCache(file: string, cacheFile = `${file}.cache`): CodeCacheUse {
  const compiled = compileWithCodeCache(file, cacheFile);
  if (compiled.use !== "used") process.once("exit", () => writeCodeCache(cacheFile, compiled));
  evaluate(compiled);
  return compiled.use;
}

/** The CommonJS wrapper, on the source's first line so that line numbers stay; a `#!` line becomes a comment. */
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source.startsWith("#!") ? `//${source.slice(2)}` : source}\n})`;
}

/**
 * The contents of `path` if it is a regular file of at most `maxBytes`; else undefined. Opened
 * without blocking (a FIFO in its place would block `open` forever) and checked on the open file.
 */
function readRegularFile(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const buffer = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, read);
      if (count === 0) return undefined; // shrank while read
      read += count;
    }
    return buffer;
  } finally {
    closeSync(fd);
  }
}

/** Writes the source hash and V8's cache of the script to `cacheFile`, through a new file renamed over it; a failure leaves things as they were. */
export function writeCodeCache(cacheFile: string, { hash, script }: CompiledScript): void {
  const temporary = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([hash, script.createCachedData()]), { flag: "wx", mode: 0o644 });
    renameSync(temporary, cacheFile);
  } catch {
    rmSync(temporary, { force: true });
  }
}
