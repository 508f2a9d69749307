import type { Page } from "@playwright/test";
import { expect, openChat, sendPrompt, test } from "./fixtures.js";

// The browser-chat example keeps each tab's conversation across reloads: the harness resumes the
// session (the gateway lets a page resume its own sessions), and the page restores its history
// from IndexedDB (createIndexedDbConversationStore) — in Chromium, through the real gateway.

/** The turnCount of this tab's stored conversation, read straight from IndexedDB (0 when none). */
function storedTurns(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const id = sessionStorage.getItem("browser-chat.conversationId");
    if (id === null) return 0;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("browser-chat");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      if (!db.objectStoreNames.contains("snapshots")) return 0;
      const text = await new Promise<unknown>((resolve, reject) => {
        const request = db.transaction("snapshots").objectStore("snapshots").get(id);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      return typeof text === "string" ? (JSON.parse(text) as { turnCount: number }).turnCount : 0;
    } finally {
      db.close();
    }
  });
}

async function reload(page: Page): Promise<void> {
  await page.reload();
  await expect(page.locator("#status")).toHaveAttribute("data-state", "connected");
}

test.describe("browser chat: a tab's conversation survives a reload", () => {
  test("reloading restores the transcript, and the harness continues the same session", async ({ page, server }) => {
    await openChat(page, server);
    await expect(page.locator("body")).toHaveAttribute("data-restored-turns", "0");
    await sendPrompt(page, "Hi there, agent");
    await expect.poll(() => storedTurns(page), { message: "the turn is saved in IndexedDB" }).toBe(1);
    const id = await page.evaluate(() => sessionStorage.getItem("browser-chat.conversationId"));

    await reload(page);
    await expect(page.locator("body")).toHaveAttribute("data-restored-turns", "1");
    // The harness resumed the session and replayed its steps (§5): the model's side continues too.
    expect(Number(await page.locator("body").getAttribute("data-resumed-steps"))).toBeGreaterThan(0);
    await expect(page.locator("li.turn.user")).toHaveText(["Hi there, agent"]);
    await expect(page.locator("li.turn.agent .bubble.text")).toHaveText([
      "Hello from the reference harness! You said: Hi there, agent",
    ]);
    await expect(page.locator("li.turn.agent .thought")).toHaveText(["A greeting. I will answer briefly."]);
    await expect(page.locator("#usage")).toHaveText(/^Tokens: [1-9]\d* in/);

    await sendPrompt(page, "And again");
    await expect(page.locator("li.turn.agent")).toHaveCount(2);
    await expect.poll(() => storedTurns(page)).toBe(2);
    await reload(page);
    await expect(page.locator("body")).toHaveAttribute("data-restored-turns", "2");
    await expect(page.locator("li.turn.user")).toHaveText(["Hi there, agent", "And again"]);
    expect(await page.evaluate(() => sessionStorage.getItem("browser-chat.conversationId"))).toBe(id);
    await expect(page.locator("#error")).toBeHidden();
  });

  test("a client tool's card comes back from the saved steps", async ({ page, server }) => {
    await openChat(page, server);
    await sendPrompt(page, "What do my notes say?");
    await expect.poll(() => storedTurns(page)).toBe(1);
    await reload(page);
    const card = page.locator('.tool[data-tool="read_page"][data-kind="client"]');
    await expect(card).toHaveAttribute("data-status", "done");
    await expect(card.locator(".outcome")).toContainText("the launch window opens on Tuesday at 09:30");
  });

  test("another tab starts its own conversation", async ({ page, server, context }) => {
    await openChat(page, server);
    await sendPrompt(page, "Hi there, agent");
    await expect.poll(() => storedTurns(page)).toBe(1);
    const other = await context.newPage();
    await openChat(other, server);
    await expect(other.locator("body")).toHaveAttribute("data-restored-turns", "0");
    await expect(other.locator("body")).toHaveAttribute("data-resumed-steps", "0");
    await expect(other.locator("li.turn")).toHaveCount(0);
  });
});
