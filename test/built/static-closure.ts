import { readFileSync } from "node:fs";
import path from "node:path";

/** What the protobuf-es runtime and the generated schema define (bundlers keep the names). */
export const REGISTRY_MARKERS = ["function fileDesc(", "function fromJson(", "function toJson("];

const STATIC_IMPORT = /(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{][^"'();]*?from\s*)?["']([^"']+)["']/g;

/**
 * `entry` (a file of `dir`) and every file of `dir` it imports statically, transitively: what Node
 * loads of `dir` before `entry` runs; with the bare specifiers (packages) those files import.
 */
export function staticClosure(dir: string, entry: string): { files: Map<string, string>; packages: Set<string> } {
  const files = new Map<string, string>();
  const packages = new Set<string>();
  const pending = [entry];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (files.has(name)) continue;
    const code = readFileSync(path.join(dir, name), "utf8");
    files.set(name, code);
    for (const match of code.matchAll(STATIC_IMPORT)) {
      const specifier = match[1] as string;
      if (specifier.startsWith(".")) pending.push(path.posix.join(path.posix.dirname(name), specifier));
      else packages.add(specifier);
    }
  }
  return { files, packages };
}
