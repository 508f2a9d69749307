// `npm start`: the quick start of the Antigravity TypeScript SDK. Builds the packages' JavaScript
// if dist/ is missing or older than the sources (esbuild, about a second; no .d.ts), then runs the
// `antigravity` CLI: the reference harness as a subprocess, an offline scripted model (Gemini
// when GEMINI_API_KEY is set), a client tool, a policy check, a built-in tool and the usage.
//   npm start                    the quick start
//   npm start -- --interactive   a REPL
//   npm start -- "your prompt"   one turn
import { ensureDist } from "@antigravity-ts/test-kit/ensure-dist";

const dim = (text) => (process.stderr.isTTY && !process.env.NO_COLOR ? `\x1b[2m${text}\x1b[0m` : text);
const built = await ensureDist({ log: (line) => process.stderr.write(`${dim(line)}\n`) });
if (built.length > 0) process.stderr.write(`${dim(`built ${built.join(", ")}`)}\n`);
await import("../packages/cli/dist/cli.js");
