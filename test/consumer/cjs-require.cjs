// CommonJS consumer: the packages are ESM only; Node >= 20.19 loads them with require() (require(esm)).
const assert = require("node:assert/strict");
const sdk = require("@antigravity-ts/sdk");
const node = require("@antigravity-ts/node");

for (const name of ["Agent", "WebSocketTransport", "defineTool", "SdkError"])
  assert.equal(typeof sdk[name], "function", `sdk.${name}`);
for (const name of ["Agent", "SubprocessTransport", "createHarnessGateway", "defineTool"])
  assert.equal(typeof node[name], "function", `node.${name}`);
// One SdkError class across both entry points, and a typed error for bad input.
assert.equal(node.SdkError, sdk.SdkError);
assert.throws(
  () => sdk.defineTool({ name: "not a name", description: "", call: () => 1 }),
  (error) => error instanceof node.SdkError && error.code === "InvalidArgument",
);
console.log(JSON.stringify({ sdkExports: Object.keys(sdk).length, nodeExports: Object.keys(node).length }));
