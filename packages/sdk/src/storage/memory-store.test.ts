import { describe, expect, it, vi } from "vitest";
import type { ConversationStoreWarning } from "../conversation/conversation-store.js";
import { sampleSnapshot, storeContractChecks } from "../testing/store-contract.js";
import { createMemoryConversationStore } from "./memory-store.js";

function subject() {
  const warnings: ConversationStoreWarning[] = [];
  const store = createMemoryConversationStore({ onWarning: (w) => warnings.push(w) });
  return { store, warnings, writeRaw: async (id: string, text: string) => void store.entries.set(id, text) };
}

describe("createMemoryConversationStore", () => {
  for (const check of storeContractChecks) it(check.name, async () => check.run(subject()));

  it("keeps what it moved aside, under the id and a counter", async () => {
    const { store, warnings, writeRaw } = subject();
    await writeRaw("a", "garbage 1");
    await store.load("a");
    await writeRaw("a", "garbage 2");
    await store.load("a");
    expect([...store.movedAside]).toEqual([
      ["a#1", "garbage 1"],
      ["a#2", "garbage 2"],
    ]);
    expect(warnings.map((w) => w.movedTo)).toEqual(["memory key a#1", "memory key a#2"]);
    expect(warnings[0]?.message).toMatch(
      /^stored conversation a at memory is unusable: it is not JSON \(.+\)\. It was moved to memory key a#1; the conversation starts empty\.$/,
    );
  });

  it("shares its map: two stores over one map see each other's saves", async () => {
    const entries = new Map<string, unknown>();
    await createMemoryConversationStore({ entries }).save(sampleSnapshot("shared"));
    expect((await createMemoryConversationStore({ entries }).load("shared"))?.turnCount).toBe(2);
  });

  it("warns through console.warn when no onWarning is given, and a throwing onWarning never fails a load", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const plain = createMemoryConversationStore();
      plain.entries.set("x", "{");
      await expect(plain.load("x")).resolves.toBeUndefined();
      expect(warn).toHaveBeenCalledExactlyOnceWith(
        expect.stringContaining("stored conversation x at memory is unusable"),
      );
    } finally {
      warn.mockRestore();
    }
    const throwing = createMemoryConversationStore({
      onWarning: () => {
        throw new Error("handler bug");
      },
    });
    throwing.entries.set("x", "{");
    await expect(throwing.load("x")).resolves.toBeUndefined();
    expect(throwing.movedAside.size).toBe(1);
  });
});
