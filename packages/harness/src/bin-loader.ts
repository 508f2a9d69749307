#!/usr/bin/env node
import { join } from "node:path";
import { runWithCodeCache } from "./code-cache.js";

// dist/bin.cjs, the `antigravity-harness` executable: runs the bundled harness beside it
// (dist/bin.bundle.cjs, built from src/bin.ts) from V8's code cache (code-cache.ts). CommonJS, so
// that Node starts it without its ES module loader (10-13 ms less than an ES module entry). The
// sources run src/bin.ts directly.
runWithCodeCache(join(__dirname, "bin.bundle.cjs"));
