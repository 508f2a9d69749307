/** Declarations of scripts/bundle-for-browser.mjs, for the TypeScript tests that use it. */
export declare const repoRoot: string;
/** Bytes of `text` gzipped at level 9, as every size here is measured. */
export declare function gzipSize(text: string): number;
export declare const runtimeConditions: Record<"browser" | "workerd", string[]>;
export interface BrowserBundle {
  /** Every output chunk's code, the lazily loaded ones too. */
  code: string;
  /** The code of the start-up chunks alone. */
  startCode: string;
  /** The start-up download: the entry chunk and the chunks it imports statically. */
  minifiedBytes: number;
  gzipBytes: number;
  /** The chunks only a dynamic `import()` loads. */
  lazyMinifiedBytes: number;
  lazyGzipBytes: number;
  /** Files esbuild read, relative to the repo root (`packages/sdk/dist/index.js`, `node_modules/...`). */
  inputs: string[];
  /** The files with code in the start-up chunks (the entry and its static imports). */
  startInputs: string[];
  /** Minified bytes each of those files puts into the start-up chunks. */
  startInputBytes: Record<string, number>;
  /** Imports left in the output (should be none). */
  imports: string[];
}
export declare function bundleForBrowser(
  entry: string | { contents: string } | { file: string },
  options?: { runtime?: "browser" | "workerd"; minify?: boolean; fromSource?: boolean },
): Promise<BrowserBundle>;
export declare function forbiddenReach(bundle: Pick<BrowserBundle, "inputs" | "imports">): string[];
