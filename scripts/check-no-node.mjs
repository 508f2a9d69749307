#!/usr/bin/env node
// Proves a source tree stays runtime-neutral: no import of a Node built-in (`node:*`, or a bare
// builtin such as "fs", "path", "crypto", "fs/promises") and, unless --imports-only, no use of
// Node globals (process, Buffer, __dirname, __filename, require(…), global., setImmediate,
// clearImmediate) except as a property — i.e. behind a `globalThis` guard such as
// `(globalThis as { process?: … }).process`.
//
//   node scripts/check-no-node.mjs [--imports-only] [--exclude <dir>]… <dir>…
//
// Without TypeScript: a light tokenizer drops comments, string and template text and regex
// literals before identifiers are matched, so a comment or a string that mentions `process`
// passes while code that uses it fails. Skipped: *.test.*, *.spec.*, *.test-d.ts, node_modules
// and, by default, a `gen` folder at the top of each scanned dir. Run --imports-only on built
// bundles (dist), where only import specifiers are meaningful. Exit 0 clean, 1 violations, 2 usage.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const NODE_BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));
const NODE_GLOBALS = new Set(["process", "Buffer", "__dirname", "__filename", "setImmediate", "clearImmediate"]);
const REGEX_AFTER_KEYWORD = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);
const MEMBER_MODIFIERS = new Set([
  "readonly",
  "public",
  "private",
  "protected",
  "static",
  "declare",
  "abstract",
  "override",
]);
const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_FILE = /\.(?:test|spec)\.[^.]+$|\.test-d\.ts$/;

/**
 * Splits source text into tokens: `ident`, `string` (value = the text between the quotes),
 * `template` (value = the literal text; `${…}` code inside is tokenized as code), `regex`,
 * `number` and `punct`. Comments are dropped. Each token has its 1-based `line` and `column`.
 */
export function tokenize(source) {
  const tokens = [];
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") lineStarts.push(i + 1);
  const position = (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - lineStarts[lo] + 1 };
  };
  const push = (kind, value, offset) => tokens.push({ kind, value, ...position(offset) });
  const braces = []; // open-brace counts of the `${…}` substitutions we are inside
  let i = source.startsWith("#!") ? source.indexOf("\n") + 1 || source.length : 0;

  /** Reads template text from `i` up to the closing backtick or a `${`; returns the offset after it. */
  const templateText = (start) => {
    let j = start;
    while (j < source.length) {
      if (source[j] === "\\") j += 2;
      else if (source[j] === "`") {
        push("template", source.slice(start, j), start);
        return j + 1;
      } else if (source[j] === "$" && source[j + 1] === "{") {
        push("template", source.slice(start, j), start);
        braces.push(0);
        return j + 2;
      } else j++;
    }
    push("template", source.slice(start), start);
    return source.length;
  };

  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end === -1 ? source.length : end;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      push("string", source.slice(i + 1, j), i);
      i = j + 1;
    } else if (c === "`") {
      i = templateText(i + 1);
    } else if (c === "}" && braces.length > 0 && braces[braces.length - 1] === 0) {
      braces.pop();
      i = templateText(i + 1);
    } else if (c === "/" && regexAllowed(tokens[tokens.length - 1])) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        else if (source[j] === "/" && !inClass) break;
        j++;
      }
      j++;
      while (j < source.length && /[A-Za-z]/.test(source[j])) j++;
      push("regex", source.slice(i, j), i);
      i = j;
    } else if (/[A-Za-z_$#\u0080-\uffff]/.test(c)) {
      const match = /^#?[\w$\u0080-\uffff]+/.exec(source.slice(i, i + 256));
      const word = match ? match[0] : c;
      push("ident", word, i);
      i += word.length;
    } else if (/\d/.test(c) || (c === "." && /\d/.test(next ?? ""))) {
      const match = /^\.?[\w.]+/.exec(source.slice(i, i + 256));
      push("number", match[0], i);
      i += match[0].length;
    } else {
      const three = source.slice(i, i + 3);
      const two = source.slice(i, i + 2);
      const op =
        three === "..."
          ? three
          : two === "?." && !/\d/.test(source[i + 2] ?? "")
            ? two
            : ["=>", "++", "--"].includes(two)
              ? two
              : c;
      if (braces.length > 0 && op === "{") braces[braces.length - 1]++;
      if (braces.length > 0 && op === "}") braces[braces.length - 1]--;
      push("punct", op, i);
      i += op.length;
    }
  }
  return tokens;
}

/** Whether a `/` after `previous` starts a regex literal rather than a division. */
function regexAllowed(previous) {
  if (previous === undefined) return true;
  if (previous.kind === "ident") return REGEX_AFTER_KEYWORD.has(previous.value);
  if (previous.kind === "punct") return ![")", "]", "}", "++", "--"].includes(previous.value);
  return false;
}

/** Whether an import specifier names a Node built-in. */
export function isNodeBuiltin(specifier) {
  return specifier.startsWith("node:") || NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split("/")[0]);
}

/**
 * Finds Node dependencies in one source text. Returns `{ line, column, message }` per finding.
 * With `importsOnly`, only import specifiers (static, dynamic, `require`, `export … from`,
 * `/// <reference types="node">`) are checked.
 */
export function scanSource(source, options = {}) {
  const findings = [];
  const report = (token, message) => findings.push({ line: token.line, column: token.column, message });
  const reference = /^\s*\/\/\/\s*<reference\s+types\s*=\s*["'](node(?:\/[^"']*)?)["']/gm;
  for (let match; (match = reference.exec(source)) !== null; ) {
    const line = source.slice(0, match.index).split("\n").length;
    findings.push({ line, column: 1, message: `triple-slash reference to Node types "${match[1]}"` });
  }
  const tokens = tokenize(source);
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const prev = tokens[k - 1];
    const prev2 = tokens[k - 2];
    if (token.kind === "string" || token.kind === "template") {
      const isSpecifier =
        (prev?.kind === "ident" && (prev.value === "from" || prev.value === "import")) ||
        (prev?.value === "(" && prev2?.kind === "ident" && (prev2.value === "import" || prev2.value === "require"));
      if (isSpecifier && isNodeBuiltin(token.value)) report(token, `imports the Node built-in "${token.value}"`);
      continue;
    }
    if (options.importsOnly || token.kind !== "ident") continue;
    const next = tokens[k + 1];
    const afterDot = prev?.kind === "punct" && (prev.value === "." || prev.value === "?.");
    if (afterDot) continue;
    if (NODE_GLOBALS.has(token.value) && !isMemberKey(tokens, k)) {
      report(token, `uses the Node global "${token.value}"; reach it through globalThis behind a guard`);
    } else if (token.value === "require" && next?.value === "(") {
      report(token, `calls require(); use ESM imports`);
    } else if (token.value === "global" && (next?.value === "." || next?.value === "[")) {
      report(token, `uses the Node global "global"; use globalThis`);
    }
  }
  return findings;
}

/** Whether the identifier at `k` is a property key or member name (`{ process: … }`, `process?: T`). */
function isMemberKey(tokens, k) {
  const prev = tokens[k - 1];
  const next = tokens[k + 1];
  const colon = next?.value === ":" || (next?.value === "?" && tokens[k + 2]?.value === ":");
  if (!colon) return false;
  if (prev === undefined || prev.line < tokens[k].line) return true;
  return (
    (prev.kind === "punct" && ["{", ",", ";"].includes(prev.value)) ||
    (prev.kind === "ident" && MEMBER_MODIFIERS.has(prev.value))
  );
}

/** Scans every source file under `dir`; returns findings with a `file` path relative to `dir`. */
export function scanDirectory(dir, options = {}) {
  const exclude = new Set((options.exclude ?? ["gen"]).map((path) => resolve(dir, path)));
  const findings = [];
  const walk = (current) => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) {
        if (name !== "node_modules" && !exclude.has(path)) walk(path);
      } else if (SOURCE_FILE.test(name) && !SKIPPED_FILE.test(name)) {
        for (const finding of scanSource(readFileSync(path, "utf8"), options))
          findings.push({ file: relative(dir, path), ...finding });
      }
    }
  };
  walk(resolve(dir));
  return findings;
}

function main(argv) {
  const dirs = [];
  const exclude = [];
  let importsOnly = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--imports-only") importsOnly = true;
    else if (argv[i] === "--exclude" && argv[i + 1] !== undefined) exclude.push(argv[++i]);
    else if (argv[i]?.startsWith("--")) return usage(`unknown option ${argv[i]}`);
    else dirs.push(argv[i]);
  }
  if (dirs.length === 0) return usage("no directory given");
  let count = 0;
  for (const dir of dirs) {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return usage(`${dir} is not a directory`);
    for (const f of scanDirectory(dir, { importsOnly, exclude: exclude.length > 0 ? exclude : ["gen"] })) {
      console.error(`${join(dir, f.file)}:${f.line}:${f.column}: ${f.message}`);
      count++;
    }
  }
  if (count > 0) {
    console.error(
      `${count} Node dependenc${count === 1 ? "y" : "ies"} found; this code must run in browsers, Workers and Deno too`,
    );
    return 1;
  }
  console.log(`no Node imports${importsOnly ? "" : " or globals"} in ${dirs.join(", ")}`);
  return 0;
}

function usage(problem) {
  console.error(
    `check-no-node: ${problem}\nusage: node scripts/check-no-node.mjs [--imports-only] [--exclude <dir>]... <dir>...`,
  );
  return 2;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
