import { describe, expect, expectTypeOf, it } from "vitest";
import { definedProperties } from "./defined-properties.js";

describe("definedProperties", () => {
  it("drops the keys whose value is undefined and keeps the others in their order", () => {
    const result = definedProperties({ a: 1, b: undefined, c: "x" });
    expect(result).toEqual({ a: 1, c: "x" });
    expect(Object.keys(result)).toEqual(["a", "c"]);
    expect("b" in result).toBe(false);
  });

  it("keeps null and falsy values", () => {
    const result = definedProperties({ n: null, zero: 0, empty: "", no: false, nan: Number.NaN });
    expect(Object.keys(result)).toEqual(["n", "zero", "empty", "no", "nan"]);
    expect(result).toEqual({ n: null, zero: 0, empty: "", no: false, nan: Number.NaN });
  });

  it("returns a new object and leaves its argument alone", () => {
    const values = { a: undefined, b: 2 };
    const result = definedProperties(values);
    expect(result).not.toBe(values);
    expect(Object.keys(values)).toEqual(["a", "b"]);
  });

  it("types maybe-undefined keys as optional without undefined and keeps defined keys required", () => {
    const maybe = undefined as string | undefined;
    const result = definedProperties({ required: 1, maybe, nullable: null as number | null });
    expectTypeOf(result).toEqualTypeOf<{ required: number; nullable: number | null; maybe?: string }>();
    // Under exactOptionalPropertyTypes the optional key cannot hold undefined.
    // @ts-expect-error maybe is `string`, not `string | undefined`
    const withUndefined: typeof result = { ...result, maybe: undefined };
    void withUndefined;
    const target: { required: number; maybe?: string } = { ...result };
    expect(target).toEqual({ required: 1, nullable: null });
  });
});
