import { readdirSync, readFileSync } from "node:fs";
import { expect, keepScreenshot, openChat, sendPrompt, test, testScript } from "./fixtures.js";

// docs/examples/browser-chat in Debian's Chromium, talking through the gateway of
// @antigravity-ts/node (server.mjs) to the reference harness in a real process.

/** Pids whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after ")".
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
}

test.describe("browser chat through the harness gateway", () => {
  test("a full turn streams thinking and text and shows token usage", async ({ page, server }) => {
    await openChat(page, server);
    await sendPrompt(page, "Hi there, agent");
    const turn = page.locator("li.turn.agent").last();
    await expect(turn.locator(".thought")).toHaveText("A greeting. I will answer briefly.");
    await expect(turn.locator(".bubble.text")).toHaveText(
      "Hello from the reference harness! You said: Hi there, agent",
    );
    await expect(page.locator("li.turn.user").last()).toHaveText("Hi there, agent");
    await expect(page.locator("#usage")).toHaveText(
      /^Tokens: [1-9]\d* in · [1-9]\d* out · [1-9]\d* thinking · [1-9]\d* total$/,
    );
    await expect(page.locator("#error")).toBeHidden();

    // A second turn on the same session: usage grows.
    const first = await page.locator("#usage").textContent();
    await sendPrompt(page, "And again");
    await expect(page.locator("li.turn.agent")).toHaveCount(2);
    const total = (text: string | null): number => Number(/(\d+) total/.exec(text ?? "")?.[1]);
    expect(total(await page.locator("#usage").textContent())).toBeGreaterThan(total(first));
  });

  test("a client tool runs in the page; its card shows arguments, running then done, and the result", async ({
    page,
    server,
  }, testInfo) => {
    await openChat(page, server);
    // Record every state the card goes through, to see the running state the spinner belongs to.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { toolStatuses: string[] }).toolStatuses = seen;
      const note = (status: string | null | undefined): void => {
        if (status && seen.at(-1) !== status) seen.push(status);
      };
      // Old values rebuild every state even when several changes land in one batch of records.
      new MutationObserver((records) => {
        for (const record of records) {
          if ((record.target as HTMLElement).dataset["tool"] === "read_page") note(record.oldValue);
        }
        note(document.querySelector<HTMLElement>('.tool[data-tool="read_page"]')?.dataset["status"]);
      }).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeOldValue: true,
        attributeFilter: ["data-status"],
      });
    });
    await sendPrompt(page, "What do my notes say?");
    const card = page.locator('.tool[data-tool="read_page"]');
    await expect(card).toHaveCount(1);
    await expect(card).toHaveAttribute("data-status", "done");
    await expect(card).toHaveAttribute("data-kind", "client");
    await expect(card.locator(".args")).toHaveText('{"selector":"#notes"}');
    await expect(card.locator(".outcome")).toContainText(
      '"text":"Notes the page tool read_page can read: the launch window opens on Tuesday at 09:30."',
    );
    expect(await page.evaluate(() => (window as unknown as { toolStatuses: string[] }).toolStatuses)).toEqual([
      "running",
      "done",
    ]);
    // The model got the page's text back: the tool ran here, in the browser.
    await expect(page.locator("li.turn.agent .bubble.text").last()).toContainText(
      "Your notes say: Notes the page tool read_page can read: the launch window opens on Tuesday at 09:30.",
    );
    await expect(page.locator("li.turn.agent").last()).toHaveAttribute("data-status", "done");
    await keepScreenshot(page, testInfo, "client-tool");
  });

  test("a client tool that throws shows one error card with its arguments, and the model sees the error", async ({
    page,
    server,
  }, testInfo) => {
    await openChat(page, server);
    await sendPrompt(page, "read a missing element please");
    const card = page.locator('.tool[data-tool="read_page"]');
    await expect(card).toHaveCount(1);
    await expect(card).toHaveAttribute("data-status", "error");
    await expect(card).toHaveAttribute("data-kind", "client");
    await expect(card.locator(".args")).toHaveText('{"selector":"#no-such-element"}');
    await expect(card.locator(".outcome")).toHaveText("no element matches #no-such-element");
    const answer = page.locator("li.turn.agent .bubble.text").last();
    await expect(answer).toContainText("The page tool failed: ");
    await expect(answer).toContainText("no element matches #no-such-element");
    // The tool's failure is the model's business: the turn itself finished.
    await expect(page.locator("li.turn.agent").last()).toHaveAttribute("data-status", "done");
    await expect(page.locator("#error")).toBeHidden();
    await keepScreenshot(page, testInfo, "client-tool-throws");
  });

  test("Stop ends the turn as stopped, not as an error, and the next turn works", async ({
    page,
    server,
  }, testInfo) => {
    await openChat(page, server);
    await sendPrompt(page, "tell me something slow", { wait: false });
    const turn = page.locator("li.turn.agent").last();
    await expect(turn.locator(".bubble.text")).toContainText("one two");
    await expect(page.locator("#stop")).toBeVisible();
    await page.locator("#stop").click();
    await expect(turn).toHaveAttribute("data-status", "stopped");
    await expect(turn.locator(".ending")).toHaveText("Stopped.");
    await expect(page.locator("body")).toHaveAttribute("data-turns", "1");
    await expect(page.locator("#error")).toBeHidden();
    await expect(page.locator("#status")).toHaveAttribute("data-state", "connected");
    await expect(page.locator("#stop")).toBeHidden();
    await expect(turn.locator(".bubble.text")).not.toContainText("forty");
    await keepScreenshot(page, testInfo, "stopped");
    // The session goes on after a Stop.
    await sendPrompt(page, "Hi after the stop");
    await expect(page.locator("li.turn.agent .bubble.text").last()).toHaveText(
      "Hello from the reference harness! You said: Hi after the stop",
    );
    await expect(page.locator("li.turn.agent").last()).toHaveAttribute("data-status", "done");
  });

  test("a harness that dies while the page is idle shows disconnected without a prompt", async ({
    page,
    server,
  }, testInfo) => {
    await openChat(page, server);
    await sendPrompt(page, "Hi there, agent");
    await expect(page.locator("#prompt")).toBeEnabled();
    await server.killHarness();
    // No turn runs and nothing is sent: the page learns it from the connection closing.
    await expect(page.locator("#status")).toHaveAttribute("data-state", "disconnected");
    await expect(page.locator("#error")).toBeVisible();
    await expect(page.locator("#error")).toHaveAttribute("data-code", /^(ConnectionClosed|HarnessCrashed)$/);
    await expect(page.locator("#send")).toBeDisabled();
    await expect(page.locator("#prompt")).toBeDisabled();
    // The finished turn stays as it was.
    await expect(page.locator("li.turn.agent")).toHaveAttribute("data-status", "done");
    await keepScreenshot(page, testInfo, "disconnected-while-idle");
  });

  test.describe("with run_command allowed by the server (--allow-run-command)", () => {
    test.use({ serverOptions: { script: testScript, allowRunCommand: true } });

    test("run_command asks in a dialog; accepted, the command runs", async ({ page, server }, testInfo) => {
      await openChat(page, server);
      await sendPrompt(page, "please run a command", { wait: false });
      const dialog = page.locator("dialog#confirm");
      await expect(dialog).toBeVisible();
      await expect(dialog.locator("#confirm-command")).toHaveText("echo hello-from-the-harness");
      await keepScreenshot(page, testInfo, "confirm-dialog");
      await dialog.locator("#confirm-allow").click();
      await expect(dialog).toBeHidden();
      await expect(page.locator("body")).toHaveAttribute("data-turns", "1");
      await expect(page.locator("li.turn.agent .bubble.text").last()).toContainText("hello-from-the-harness");
      await expect(page.locator('.tool[data-tool="run_command"]')).toHaveAttribute("data-status", "done");
    });

    test("run_command asks in a dialog; refused, it never runs", async ({ page, server }) => {
      await openChat(page, server);
      await sendPrompt(page, "please run a command", { wait: false });
      const dialog = page.locator("dialog#confirm");
      await expect(dialog).toBeVisible();
      await dialog.locator("#confirm-deny").click();
      await expect(dialog).toBeHidden();
      await expect(page.locator("body")).toHaveAttribute("data-turns", "1");
      const answer = page.locator("li.turn.agent .bubble.text").last();
      await expect(answer).toContainText("run_command returned");
      // The command line is in the request, but its output never appears: nothing ran.
      await expect(answer).not.toContainText('returned {"stdout"');
      await expect(answer).toContainText(/denied|refused|not allowed/i);
      await expect(page.locator("#error")).toBeHidden();
    });
  });

  test("without --allow-run-command the page cannot enable run_command: nothing runs, no dialog", async ({
    page,
    server,
  }) => {
    await openChat(page, server);
    await sendPrompt(page, "please run a command");
    await expect(page.locator("dialog#confirm")).toBeHidden();
    const answer = page.locator("li.turn.agent .bubble.text").last();
    await expect(answer).toContainText("not a tool of this session");
    await expect(answer).not.toContainText('"stdout"');
    await expect(page.locator('.tool[data-tool="run_command"][data-status="done"]')).toHaveCount(0);
  });

  test("a hostile script in the page cannot widen its session: the gateway closes it with the reason", async ({
    page,
    server,
  }) => {
    await openChat(page, server);
    // The page's own token, a raw WebSocket, and a first frame asking for the whole disk without containment.
    const outcome = await page.evaluate(async () => {
      const { gatewayPath, token } = (await (await fetch("/config.json")).json()) as {
        gatewayPath: string;
        token: string;
      };
      const url = new URL(gatewayPath, location.href);
      url.protocol = "ws:";
      url.searchParams.set("token", token);
      const socket = new WebSocket(url.href);
      const frames: string[] = [];
      socket.onmessage = (event) => frames.push(String(event.data));
      socket.onopen = () =>
        socket.send(
          JSON.stringify({
            config: {
              workspaces: [{ filesystemWorkspace: { directory: "/" } }],
              policyConfig: { workspaceContainment: "WORKSPACE_CONTAINMENT_DISABLED" },
            },
          }),
        );
      const close = await new Promise<CloseEvent>((resolve) => (socket.onclose = resolve));
      return { code: close.code, reason: close.reason, frames };
    });
    expect(outcome.code).toBe(1008);
    expect(outcome.reason).toContain('workspace "/" is not one of the gateway\'s');
    expect(outcome.frames).toEqual([]);
  });

  test("a harness that dies mid-turn shows a connection error", async ({ page, server }, testInfo) => {
    await openChat(page, server);
    await sendPrompt(page, "tell me something slow", { wait: false });
    const answer = page.locator("li.turn.agent .bubble.text").last();
    await expect(answer).toContainText("one two");
    await server.killHarness();
    const error = page.locator("#error");
    await expect(error).toBeVisible();
    await expect(error).toHaveAttribute("data-code", /^(ConnectionClosed|HarnessCrashed)$/);
    await expect(page.locator("#status")).toHaveAttribute("data-state", "disconnected");
    await expect(page.locator("#send")).toBeDisabled();
    // The turn really was cut short, and shows it.
    await expect(answer).not.toContainText("forty");
    await expect(page.locator("li.turn.agent").last()).toHaveAttribute("data-status", "disconnected");
    await keepScreenshot(page, testInfo, "connection-lost");
  });

  test("a gateway that goes away mid-session shows a connection error", async ({ page, server }) => {
    await openChat(page, server);
    await sendPrompt(page, "tell me something slow", { wait: false });
    await expect(page.locator("li.turn.agent .bubble.text").last()).toContainText("one two");
    await server.kill();
    await expect(page.locator("#error")).toHaveAttribute("data-code", /^(ConnectionClosed|HarnessCrashed)$/);
    await expect(page.locator("#status")).toHaveAttribute("data-state", "disconnected");
  });

  test.describe("with a harness subprocess per tab (--per-client)", () => {
    test.use({ serverOptions: { script: testScript, perClient: true } });

    test("each tab gets its own harness and a full turn works", async ({ page, context, server }) => {
      await openChat(page, server);
      await sendPrompt(page, "What do my notes say?");
      await expect(page.locator('.tool[data-tool="read_page"]')).toHaveAttribute("data-status", "done");
      await expect(page.locator("li.turn.agent .bubble.text").last()).toContainText("Your notes say:");
      const second = await context.newPage();
      await openChat(second, server);
      await sendPrompt(second, "Hello second tab");
      await expect(second.locator("li.turn.agent .bubble.text").last()).toHaveText(
        "Hello from the reference harness! You said: Hello second tab",
      );
      // Two tabs, two harness subprocesses of the server.
      expect(childPids(server.pid)).toHaveLength(2);
      await second.close();
      // Closing a tab shuts its harness down (the gateway closes the relay's transport).
      await expect.poll(() => childPids(server.pid).length).toBe(1);
    });
  });

  test.describe("with the harness's built-in demo model", () => {
    test.use({ serverOptions: {} });

    test("renders a whole demo turn; screenshot kept as an artifact", async ({ page, server }, testInfo) => {
      await openChat(page, server);
      await sendPrompt(page, "What can you do?");
      const turn = page.locator("li.turn.agent").last();
      await expect(turn.locator(".thought").first()).toContainText("scripted demo model");
      // The demo lists the workspace only when list_directory is offered: no default since upstream 0.1.19.
      await expect(turn.locator('.tool[data-tool="list_directory"]')).toHaveCount(0);
      // The demo calls the first client tool with schema-built arguments: read_page with no selector.
      await expect(turn.locator('.tool[data-tool="read_page"]')).toHaveAttribute("data-status", "done");
      await expect(turn.locator(".bubble.text").last()).toContainText("Tuesday at 09:30");
      await expect(page.locator("#usage")).toContainText("total");
      // Not in the README's set: its list_directory card shows the workspace's absolute path.
      await keepScreenshot(page, testInfo, "browser-chat", { committed: false });
    });
  });
});
