/**
 * Logging of the harness. Everything goes to stderr: in stdio mode stdout carries only the
 * handshake reply (protocol §2.3), and clients keep a tail of stderr for their error messages.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** A logger whose lines are prefixed with `[scope]`. */
  child(scope: string): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where lines go; defaults to `process.stderr`. */
  write?: (line: string) => void;
  scope?: string;
}

/** Creates a stderr logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const prefix = options.scope === undefined ? "" : `[${options.scope}] `;
  const emit = (level: string, message: string): void => write(`${level}${prefix}${message}\n`);
  return {
    info: (message) => emit("", message),
    warn: (message) => emit("warning: ", message),
    error: (message) => emit("error: ", message),
    child: (scope) => createLogger({ write, scope: options.scope === undefined ? scope : `${options.scope} ${scope}` }),
  };
}
