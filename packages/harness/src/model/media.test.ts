import { describe, expect, it } from "vitest";
import { jsonForEstimate, mediaByteLength, mediaFromWire, mediaKind } from "./media.js";

describe("inline media", () => {
  it("takes wire media with a type/subtype and data, and says what is wrong otherwise", () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253]);
    expect(mediaFromWire({ mimeType: "Image/PNG; charset=x", data: bytes, description: "d" }, "part 0")).toEqual({
      mimeType: "image/png",
      data: Buffer.from(bytes).toString("base64"),
      description: "d",
    });
    for (const mimeType of ["", "png", "image/", "image/png\r\nX-Injected: 1", "a/b/c", `${"x".repeat(200)}/y`]) {
      expect(mediaFromWire({ mimeType, data: bytes }, "part 0")).toMatch(/^part 0 has mimeType .*give a type\/subtype/);
    }
    expect(mediaFromWire({ mimeType: "image/png" }, "part 1")).toBe("part 1 (image/png) has no data");
  });

  it("knows byte lengths and kinds", () => {
    for (const n of [1, 2, 3, 4, 1000])
      expect(mediaByteLength({ mimeType: "x/y", data: Buffer.alloc(n).toString("base64") })).toBe(n);
    expect(
      [
        "image/webp",
        "audio/mpeg",
        "video/mp4",
        "text/markdown",
        "application/json",
        "application/ld+json",
        "application/pdf",
      ].map(mediaKind),
    ).toEqual(["image", "audio", "video", "text", "text", "text", "document"]);
  });

  it("counts media in estimates by what they cost, not by their base64", () => {
    const image = { mimeType: "image/png", data: Buffer.alloc(5 * 1024 * 1024).toString("base64") };
    const messages = [{ role: "user", text: "look", media: [image] }];
    const json = jsonForEstimate(messages);
    expect(json.length).toBeLessThan(30_000);
    expect(json.length).toBeGreaterThan(4 * 258 * 20);
    const text = { mimeType: "text/plain", data: Buffer.from("hello world").toString("base64") };
    expect(jsonForEstimate([{ media: [text] }])).toBe(
      JSON.stringify([{ media: [{ mimeType: "text/plain", data: "hello world" }] }]),
    );
    const plain = [{ role: "user", text: "no media", data: "not a medium" }];
    expect(jsonForEstimate(plain)).toBe(JSON.stringify(plain));
  });
});
