// The page's HTML: page.tsx's bundle (page.js) renders into #root.
export const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Antigravity with useChat</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 760px; margin: 24px auto; padding: 0 16px; }
article { border-radius: 10px; padding: 8px 14px; margin: 10px 0; }
article.user { background: #e8f0fe; } article.assistant { background: #f6f6f6; }
.tool { border: 1px solid #ccc; border-radius: 8px; padding: 6px 10px; margin: 6px 0; background: #fff; }
.tool[data-state="output-error"] { border-color: #c62828; } .tool[data-state="output-denied"] { border-color: #ef6c00; }
pre { white-space: pre-wrap; word-break: break-all; } .reasoning { color: #666; font-style: italic; } #error { color: #c62828; } .usage { color: #888; font-size: 12px; }
form { display: flex; gap: 8px; } input { flex: 1; padding: 6px; }
</style></head>
<body><div id="root"></div><script type="module" src="/page.js"></script></body>
</html>`;
