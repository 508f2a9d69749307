// Regenerates packages/sdk/src/wire/wire-plan.gen.ts, the schema-free JSON plan of the frames,
// from the protobuf-es schema in packages/sdk/src/gen (run after `npm run gen`). The wire-plan
// test fails while the committed file differs from what this writes.
//   node scripts/gen-wire-plan.mjs
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const target = fileURLToPath(new URL("../packages/sdk/src/wire/wire-plan.gen.ts", import.meta.url));
const { renderWirePlan } = await tsImport("../packages/sdk/src/wire/wire-plan-compile.ts", import.meta.url);
writeFileSync(target, renderWirePlan());
console.log(`gen-wire-plan: wrote ${target}`);
