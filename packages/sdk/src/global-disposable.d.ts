// `await using` support in the published declarations: Agent, Conversation and StreamingSession
// implement AsyncDisposable. These two declarations (the same as TypeScript's esnext.disposable lib
// and @types/node) let a project compile with lib ["es2022", "dom"] and skipLibCheck false
// (scripts/consumer-suite.mjs checks it); with the newer lib they merge with its own.
declare global {
  interface SymbolConstructor {
    readonly asyncDispose: unique symbol;
  }
  interface AsyncDisposable {
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

/** What `await using` needs of a value: the SDK's disposable objects (Agent, Conversation, StreamingSession) are this. */
export type AsyncDisposableLike = AsyncDisposable;
