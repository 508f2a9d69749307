/**
 * Builds example arguments from a JSON schema: the scripted model uses it for `"$fromSchema"`
 * (e.g. to call the client's first tool in the demo). Only required properties are filled;
 * `enum`, `default` and `examples` win; otherwise strings are "demo", numbers count up from 2
 * (so a demo `add(a, b)` gets 2 and 3), booleans are true and arrays hold one example item.
 * A top-level property named in `given` (the named groups of the turn's regex, so a prompt's
 * "weather in Tokyo" fills `city`) takes that value instead, required or not.
 */
export function exampleFromSchema(schema: unknown, given: Readonly<Record<string, string>> = {}): unknown {
  const counter = { next: 2 };
  const built = example(schema, counter, 0);
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (
    typeof built !== "object" ||
    built === null ||
    Array.isArray(built) ||
    typeof properties !== "object" ||
    properties === null
  )
    return built;
  const named = Object.entries(given).filter(([name, value]) => value !== "" && Object.hasOwn(properties, name));
  return { ...built, ...Object.fromEntries(named) };
}

function example(schema: unknown, counter: { next: number }, depth: number): unknown {
  if (typeof schema !== "object" || schema === null || depth > 8) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s["enum"]) && s["enum"].length > 0) return s["enum"][0];
  if (s["const"] !== undefined) return s["const"];
  if (s["default"] !== undefined) return s["default"];
  if (Array.isArray(s["examples"]) && s["examples"].length > 0) return s["examples"][0];
  const types = Array.isArray(s["type"]) ? (s["type"] as unknown[]) : [s["type"]];
  const type = types.find((t) => t !== "null") ?? (typeof s["properties"] === "object" ? "object" : undefined);
  switch (typeof type === "string" ? type.toLowerCase() : type) {
    case "string":
      return "demo";
    case "integer":
    case "number":
      return counter.next++;
    case "boolean":
      return true;
    case "array":
      return [example(s["items"], counter, depth + 1)];
    case "object": {
      const properties = (
        typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : {}
      ) as Record<string, unknown>;
      const required = Array.isArray(s["required"])
        ? s["required"].filter((k): k is string => typeof k === "string")
        : [];
      return Object.fromEntries(required.map((key) => [key, example(properties[key], counter, depth + 1)]));
    }
    default:
      return null;
  }
}
