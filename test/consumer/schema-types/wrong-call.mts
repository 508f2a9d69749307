// Must not compile: the schema says { city: string }, `call` wants { town: number }. Before
// schema-first tools this compiled and the tool silently answered {"doubled": null}.
import { defineTool } from "@antigravity-ts/sdk";
import { z } from "zod";

export const doubled = defineTool({
  name: "doubled",
  description: "Doubles a number",
  parameters: z.object({ city: z.string() }),
  call: ({ town }: { town: number }) => ({ doubled: town * 2 }),
});
