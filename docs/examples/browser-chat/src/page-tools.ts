import { defineTool } from "@antigravity-ts/sdk";

/**
 * A client tool that runs in the page: the model asks for the text of an element and gets what
 * the user sees. It shows that tools are plain functions in whatever runtime holds the agent.
 */
export const readPage = defineTool({
  name: "read_page",
  description:
    "Reads the visible text of an element of the chat page, chosen by a CSS selector. Without a selector it reads the user's notes (#notes).",
  parameters: {
    type: "object",
    properties: { selector: { type: "string", description: "CSS selector of the element to read (default #notes)" } },
  },
  call: ({ selector = "#notes" }: { selector?: string }) => {
    const element = document.querySelector(selector);
    if (element === null) throw new Error(`no element matches ${selector}`);
    return { selector, text: (element.textContent ?? "").trim().replace(/\s+/g, " ") };
  },
});
