// Types of scripts/check-no-node.mjs, for the tests that import its scanner.

/** One token of the light tokenizer (comments are dropped). */
export interface Token {
  kind: "ident" | "string" | "template" | "regex" | "number" | "punct";
  value: string;
  line: number;
  column: number;
}

/** A Node dependency found in a source text. */
export interface Finding {
  line: number;
  column: number;
  message: string;
}

export interface ScanOptions {
  /** Check import specifiers only (for built bundles). */
  importsOnly?: boolean;
  /** Directories (relative to the scanned dir) to skip; default `["gen"]`. */
  exclude?: string[];
}

export function tokenize(source: string): Token[];
export function isNodeBuiltin(specifier: string): boolean;
export function scanSource(source: string, options?: ScanOptions): Finding[];
export function scanDirectory(dir: string, options?: ScanOptions): Array<Finding & { file: string }>;
