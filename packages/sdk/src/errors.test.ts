import { describe, expect, it } from "vitest";
import { ErrorCode, SdkError } from "./index.js";

describe("SdkError", () => {
  it("is retryable exactly for the transient codes", () => {
    const retryable = Object.values(ErrorCode).filter((code) => new SdkError(code, "x").retryable);
    expect(retryable.sort()).toEqual(["ConnectionClosed", "DeadlineExceeded", "ResourceExhausted", "Unavailable"]);
    expect(new SdkError(ErrorCode.NotFound, "no such session").retryable).toBe(false);
  });

  it("recognises an SdkError of another installed copy by its global brand", () => {
    // A second copy of the package defines its own class; only the Symbol.for brand is shared.
    const brand = Symbol.for("@antigravity-ts/sdk.SdkError");
    class OtherCopySdkError extends Error {
      readonly code = "Unavailable";
      constructor() {
        super("from the other copy");
        Object.defineProperty(this, brand, { value: true });
      }
    }
    const foreign = new OtherCopySdkError();
    expect(foreign instanceof SdkError).toBe(true);
    expect(SdkError.from(foreign)).toBe(foreign);
    expect(new Error("plain") instanceof SdkError).toBe(false);
    expect({ code: "Unavailable", name: "SdkError" } instanceof SdkError).toBe(false);
    expect((null as unknown) instanceof SdkError).toBe(false);
    expect(new SdkError(ErrorCode.Internal, "own") instanceof SdkError).toBe(true);
  });

  it("keeps the prototype check for subclasses", () => {
    class Narrow extends SdkError {}
    expect(new Narrow(ErrorCode.Internal, "x") instanceof Narrow).toBe(true);
    expect(new SdkError(ErrorCode.Internal, "x") instanceof Narrow).toBe(false);
  });

  it("does not show the brand among its own enumerable keys", () => {
    expect(
      Object.getOwnPropertySymbols(new SdkError(ErrorCode.Internal, "x")).every(
        (s) => !Object.getOwnPropertyDescriptor(new SdkError(ErrorCode.Internal, "x"), s)?.enumerable,
      ),
    ).toBe(true);
  });
});
