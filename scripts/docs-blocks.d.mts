// Types of scripts/docs-blocks.mjs for the tests that import it (test/node/docs/code-blocks.test.ts).

/** A ts/js/tsx block of a page, with its fence's flags. */
export interface DocsBlock {
  /** `<page>#<n>`, n counting the page's checked blocks from 1. */
  key: string;
  file: string;
  /** The fence's line in the page, from 1. */
  line: number;
  tsx: boolean;
  code: string;
  /** Where the block is written in a project: `<page>/<file=>` or `<page>/block-<n>.ts`. */
  source: string;
  /** `no-run: <why>`: type-checked, not run. */
  noRun?: string;
  /** `no-check: <why>`: neither type-checked nor run. */
  noCheck?: string;
  /** What is wrong with the fence's flags. */
  problems: string[];
}

export function docsFiles(root: string): string[];
export function docsBlocks(root: string, files?: readonly string[]): DocsBlock[];
export function flagProblems(blocks: readonly DocsBlock[]): string[];
export function thirdPartyImports(blocks: readonly DocsBlock[]): string[];
export function linkThirdParty(root: string, project: string, blocks: readonly DocsBlock[]): string[];
export function compileBlocks(
  root: string,
  project: string,
  blocks: readonly DocsBlock[],
): { dir: string; errors: string[] };
export function runBlocks(
  dir: string,
  blocks: readonly DocsBlock[],
  env: NodeJS.ProcessEnv,
): Promise<{ ran: number; failures: string[] }>;
