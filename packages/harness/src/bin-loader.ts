#!/usr/bin/env node
import { fileURLToPath } from "node:url";
import { runWithCodeCache } from "./code-cache.js";

// dist/bin.js, the `antigravity-harness` executable: runs the bundled harness beside it (dist/bin.cjs,
// built from src/bin.ts) from V8's code cache (code-cache.ts). The sources run src/bin.ts directly.
runWithCodeCache(fileURLToPath(new URL("./bin.cjs", import.meta.url)));
