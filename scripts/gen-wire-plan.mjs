// Regenerates the schema-free tables of packages/sdk/src/wire from the protobuf-es schema in
// packages/sdk/src/gen (run after `npm run gen`): wire-plan.gen.ts, the JSON plan of the frames,
// and wire-enums.gen.ts, the schema's enums as plain objects. The wire-plan test fails while a
// committed file differs from what this writes.
//   node scripts/gen-wire-plan.mjs
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const { renderWirePlan, renderWireEnums } = await tsImport(
  "../packages/sdk/src/wire/wire-plan-compile.ts",
  import.meta.url,
);
for (const [file, text] of [
  ["wire-plan.gen.ts", renderWirePlan()],
  ["wire-enums.gen.ts", renderWireEnums()],
]) {
  const target = fileURLToPath(new URL(`../packages/sdk/src/wire/${file}`, import.meta.url));
  writeFileSync(target, text);
  console.log(`gen-wire-plan: wrote ${target}`);
}
