/**
 * Where the SDK's diagnostics go: the `logger` option of an agent. Structurally typed, so
 * `console`, pino, winston and most loggers fit as they are. Messages are one line each.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * The default: `console`, each message prefixed `antigravity: ` — what the SDK always printed.
 * A runtime without `console` gets silence, never an error.
 */
export const consoleLogger: Logger = {
  debug: (message) => globalThis.console?.debug(`antigravity: ${message}`),
  info: (message) => globalThis.console?.info(`antigravity: ${message}`),
  warn: (message) => globalThis.console?.warn(`antigravity: ${message}`),
  error: (message) => globalThis.console?.error(`antigravity: ${message}`),
};
