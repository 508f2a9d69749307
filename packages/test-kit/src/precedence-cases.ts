/** A rule of a {@link PrecedenceCase}: the SDK spells its target `server/tool`, the wire `tool` + `serverName`. */
export interface PrecedenceRule {
  /** A tool name or `"*"`. */
  tool: string;
  serverName?: string;
  decision: "deny" | "ask_user" | "allow";
}

/** One case of the 9-bucket policy precedence, run by the SDK's and the harness's policy tests alike. */
export interface PrecedenceCase {
  title: string;
  rules: readonly PrecedenceRule[];
  call: { name: string; serverName?: string };
  /** Index in `rules` of the rule that decides; undefined = no rule applies (the call is allowed). */
  decides: number | undefined;
}

const NINE_BUCKETS: readonly PrecedenceRule[] = [
  { tool: "*", decision: "allow" },
  { tool: "*", decision: "ask_user" },
  { tool: "*", decision: "deny" },
  { tool: "*", serverName: "gh", decision: "allow" },
  { tool: "*", serverName: "gh", decision: "ask_user" },
  { tool: "*", serverName: "gh", decision: "deny" },
  { tool: "run_command", decision: "allow" },
  { tool: "run_command", decision: "ask_user" },
  { tool: "run_command", decision: "deny" },
];

/**
 * The precedence both sides apply (antigravity-api.md §2.8, protocol §12): exact tool deny, ask,
 * allow; then `server/*` deny, ask, allow; then `*` deny, ask, allow; declaration order within a
 * bucket; MCP names matched with or without their `mcp_<server>_` prefix.
 */
export const PRECEDENCE_CASES: readonly PrecedenceCase[] = [
  {
    title: "an exact tool rule beats * whatever the declaration order",
    rules: [
      { tool: "*", decision: "allow" },
      { tool: "run_command", decision: "deny" },
    ],
    call: { name: "run_command" },
    decides: 1,
  },
  {
    title: "within a bucket deny beats ask beats allow",
    rules: [
      { tool: "run_command", decision: "allow" },
      { tool: "run_command", decision: "ask_user" },
      { tool: "run_command", decision: "deny" },
    ],
    call: { name: "run_command" },
    decides: 2,
  },
  {
    title: "ask beats allow",
    rules: [
      { tool: "view_file", decision: "allow" },
      { tool: "view_file", decision: "ask_user" },
    ],
    call: { name: "view_file" },
    decides: 1,
  },
  {
    title: "* deny beats * ask and * allow",
    rules: [
      { tool: "*", decision: "allow" },
      { tool: "*", decision: "ask_user" },
      { tool: "*", decision: "deny" },
    ],
    call: { name: "anything" },
    decides: 2,
  },
  {
    title: "the first rule of a bucket decides, in declaration order",
    rules: [
      { tool: "view_file", decision: "allow" },
      { tool: "view_file", decision: "allow" },
    ],
    call: { name: "view_file" },
    decides: 0,
  },
  {
    title: "nothing matches: allowed",
    rules: [{ tool: "run_command", decision: "deny" }],
    call: { name: "view_file" },
    decides: undefined,
  },
  { title: "no rules: allowed", rules: [], call: { name: "anything" }, decides: undefined },
  {
    title: "all nine buckets: the exact tool deny",
    rules: NINE_BUCKETS,
    call: { name: "run_command", serverName: "gh" },
    decides: 8,
  },
  {
    title: "all nine buckets but the exact tool: server/* deny",
    rules: NINE_BUCKETS.slice(0, 6),
    call: { name: "run_command", serverName: "gh" },
    decides: 5,
  },
  {
    title: "all nine buckets, another tool of no server: * deny",
    rules: NINE_BUCKETS,
    call: { name: "view_file" },
    decides: 2,
  },
  {
    title: "server/* beats *",
    rules: [
      { tool: "*", decision: "deny" },
      { tool: "*", serverName: "gh", decision: "allow" },
    ],
    call: { name: "push", serverName: "gh" },
    decides: 1,
  },
  {
    title: "an exact server/tool beats server/*",
    rules: [
      { tool: "*", serverName: "gh", decision: "deny" },
      { tool: "push", serverName: "gh", decision: "allow" },
    ],
    call: { name: "push", serverName: "gh" },
    decides: 1,
  },
  {
    title: "a server rule does not apply to a call of no server",
    rules: [{ tool: "*", serverName: "gh", decision: "deny" }],
    call: { name: "push" },
    decides: undefined,
  },
  {
    title: "a server rule does not apply to another server's call",
    rules: [{ tool: "push", serverName: "gh", decision: "deny" }],
    call: { name: "push", serverName: "gitlab" },
    decides: undefined,
  },
  {
    title: "an mcp_<server>_ prefix names the server",
    rules: [
      { tool: "push", serverName: "git", decision: "deny" },
      { tool: "*", serverName: "github", decision: "allow" },
      { tool: "*", decision: "deny" },
    ],
    call: { name: "mcp_git_push" },
    decides: 0,
  },
  {
    title: "the longest server whose prefix the name carries",
    rules: [
      { tool: "push", serverName: "git", decision: "deny" },
      { tool: "*", serverName: "github", decision: "allow" },
      { tool: "*", decision: "deny" },
    ],
    call: { name: "mcp_github_push" },
    decides: 1,
  },
  {
    title: "a name without a server prefix gets no server",
    rules: [
      { tool: "push", serverName: "git", decision: "deny" },
      { tool: "*", serverName: "github", decision: "allow" },
      { tool: "*", decision: "allow" },
    ],
    call: { name: "push" },
    decides: 2,
  },
  {
    title: "a server/tool rule matches the prefixed name of that server's call",
    rules: [{ tool: "push", serverName: "gh", decision: "deny" }],
    call: { name: "mcp_gh_push", serverName: "gh" },
    decides: 0,
  },
];
