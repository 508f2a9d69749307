/**
 * The environment of `run_command`: an allow-list, never the harness's own environment. The
 * harness may hold the key clients authenticate with and model keys; a command (which the model
 * writes) must not be able to print them (issue 8 item 2).
 */

/** Variables a command inherits from the harness, when set there. `LC_*` is allowed too. */
export const INHERITED_VARIABLES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "TERM",
  "TZ",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
];

/**
 * Credentials the harness itself reads. A command never gets them, not even through
 * `InputConfig.env`: upstream SDKs send the same map as the harness's environment and as
 * `InputConfig.env` (§2.3), so a model key given to the SDK would otherwise reach every command.
 */
export const HARNESS_CREDENTIALS: readonly string[] = [
  "ANTIGRAVITY_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "OPENAI_API_KEY",
];

/** Whether a variable name looks like a secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, or a harness credential). */
export function isSecretName(name: string): boolean {
  return (
    HARNESS_CREDENTIALS.includes(name) ||
    /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i.test(name) ||
    /API_?KEY/i.test(name)
  );
}

/**
 * The base environment of every command: the allow-listed variables of `parent`, then
 * `configured` (`InputConfig.env`, §3: "extra env vars for tool subprocesses") as given, minus
 * {@link HARNESS_CREDENTIALS}. `PWD` is set per command to its working directory.
 */
export function commandEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && (INHERITED_VARIABLES.includes(name) || name.startsWith("LC_"))) env[name] = value;
  }
  for (const [name, value] of Object.entries(configured)) {
    if (!HARNESS_CREDENTIALS.includes(name)) env[name] = value;
  }
  return env;
}
