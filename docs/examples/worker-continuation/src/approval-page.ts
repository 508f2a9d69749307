/**
 * The page the Worker serves at `/`: it sends a prompt, shows the tool call the turn paused on
 * together with the signed continuation it received, and sends that envelope back with the
 * person's decision. It cannot change what it approves: the Worker verifies the signature.
 * Plain DOM, no build step; text is inserted with `textContent`, never as HTML.
 */
export const APPROVAL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Approve a tool call</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; }
  pre { background: #f4f4f4; padding: .5rem; white-space: pre-wrap; word-break: break-all; max-height: 12rem; overflow: auto; }
  [hidden] { display: none; }
  #error { color: #a00; }
</style>
</head>
<body>
<h1>Agent with approvals</h1>
<form id="ask"><input id="prompt" size="50" placeholder="Ask the agent" required> <button>Send</button></form>
<p id="answer" aria-live="polite"></p>
<section id="pending" hidden>
  <h2>The agent wants to run <code id="tool"></code></h2>
  <pre id="args"></pre>
  <details><summary>Signed continuation</summary><pre id="envelope"></pre></details>
  <button id="approve">Approve</button> <button id="deny">Deny</button>
</section>
<p id="error" role="alert"></p>
<script type="module">
  const $ = (id) => document.getElementById(id);
  let continuation = null;
  async function post(path, body) {
    $("error").textContent = "";
    const response = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const result = await response.json();
    if (!response.ok) throw new Error(result.error.code + ": " + result.error.message);
    return result;
  }
  function show(result) {
    $("answer").textContent = result.text;
    continuation = result.awaiting ? result.continuation : null;
    $("pending").hidden = continuation === null;
    if (continuation === null) return;
    $("tool").textContent = result.awaiting.toolCall.name;
    $("args").textContent = JSON.stringify(result.awaiting.toolCall.args, null, 2);
    $("envelope").textContent = JSON.stringify(continuation, null, 2);
  }
  async function act(work) {
    document.body.dataset.state = "busy";
    try { show(await work()); } catch (error) { $("error").textContent = error.message; }
    document.body.dataset.state = "idle";
  }
  $("ask").addEventListener("submit", (event) => { event.preventDefault(); act(() => post("/chat", { prompt: $("prompt").value })); });
  for (const [id, approved] of [["approve", true], ["deny", false]]) {
    $(id).addEventListener("click", () => act(() => post("/approve", { continuation, approved })));
  }
  document.body.dataset.state = "idle";
</script>
</body>
</html>
`;
