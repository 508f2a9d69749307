// Compiles: `call`'s argument is inferred from the zod schema, with no annotation (strict mode would
// reject an untyped destructured parameter), and it is { city: string; days: number }, not any.
import { defineTool, type Tool } from "@antigravity-ts/sdk";
import { z } from "zod";

export const forecast = defineTool({
  name: "forecast",
  description: "The weather forecast for a city",
  parameters: z.object({ city: z.string(), days: z.number().int().min(1) }),
  call: ({ city, days }) => {
    const label: string = city.toUpperCase();
    const count: number = days + 1;
    // @ts-expect-error city is a string, not a number: the inferred type is exact, not any.
    const wrong: number = city;
    void wrong;
    return { city: label, days: count };
  },
});

export const tools: Tool<{ city: string; days: number }>[] = [forecast];
