import { createServer } from "node:http";
import type { AuditRecord } from "@pablo/kernel";

export interface TimelineOptions {
  readonly title?: string;
}

/**
 * A self-contained HTML page of calls on a time axis: one row per call with its permission wait,
 * tool body and overhead as segments, coloured by decision and outcome; filters by tool, decision
 * and error code; the deciding layer, rule and reason on hover; tool calls and tool time used over
 * the session. Styles and script are inline and a Content-Security-Policy forbids loading
 * anything else, so the page works offline and cannot reach the network.
 */
export function renderTimeline(records: readonly AuditRecord[], options: TimelineOptions = {}): string {
  const title = options.title ?? "Pablo audit timeline";
  const start = records.length > 0 ? Math.min(...records.map((r) => Date.parse(r.at))) : 0;
  const end = records.length > 0 ? Math.max(...records.map((r) => Date.parse(r.at) + r.totalMs)) : 0;
  const span = Math.max(1, end - start);
  const rows = records.map((r) => row(r, start, span)).join("\n");
  const options_ = (values: Iterable<string>) =>
    [...new Set(values)]
      .sort()
      .map((v) => `<option value="${esc(v)}">${esc(v)}</option>`)
      .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${esc(title)}</h1>
<p class="summary">${records.length} call${records.length === 1 ? "" : "s"} over ${span} ms
 &middot; <span class="key wait">permission wait</span> <span class="key body">tool body</span>
 <span class="key overhead">overhead</span></p>
<form id="filters">
<label>tool <select id="filter-tool"><option value="">all</option>${options_(records.map((r) => r.tool))}</select></label>
<label>decision <select id="filter-decision"><option value="">all</option>${options_(records.map((r) => r.decision))}</select></label>
<label>error <select id="filter-error"><option value="">all</option>${options_(records.flatMap((r) => (r.errorCode ? [r.errorCode] : [])))}</select></label>
<span id="shown"></span>
</form>
<section id="budget">${budgetChart(records, start, span)}</section>
<div id="rows">
${rows}
</div>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** A loopback server for the page; `port` 0 picks a free one. */
export async function serveTimeline(
  html: string,
  port = 0,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.method !== "GET" || (request.url !== "/" && request.url !== "/index.html")) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CSP,
      "cache-control": "no-store",
    });
    response.end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A browser keeps its connection alive; closing waits for none.
        server.closeAllConnections();
      }),
  };
}

/** Nothing but the page itself: inline style and script, data: images, no fetches. */
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'";

function row(r: AuditRecord, start: number, span: number): string {
  const offset = Date.parse(r.at) - start;
  const pct = (ms: number) => ((ms / span) * 100).toFixed(3);
  const outcome = r.decision === "deny" ? "denied" : r.ok ? "ok" : "failed";
  const hover = `${r.decision} by ${r.layer}/${r.rule}: ${r.reason}${r.errorCode ? ` (${r.errorCode})` : ""}`;
  const segment = (kind: string, ms: number) =>
    ms > 0 ? `<span class="seg ${kind}" style="width:${pct(ms)}%"></span>` : "";
  return `<div class="row ${outcome}${r.prompted ? " prompted" : ""}" data-tool="${esc(r.tool)}" data-decision="${r.decision}" data-error="${esc(r.errorCode ?? "")}" title="${esc(hover)}">
<span class="label">${esc(r.at.slice(11, 23))} ${esc(r.tool)}</span>
<span class="lane"><span class="bar" style="margin-left:${pct(offset)}%">${segment("wait", r.permissionWaitMs)}${segment("body", r.durationMs)}${segment("overhead", r.overheadMs)}<span class="tick"></span></span></span>
<span class="meta">${outcome}${r.errorCode ? ` ${esc(r.errorCode)}` : ""} &middot; ${r.totalMs} ms &middot; ${esc(r.layer)}/${esc(r.rule)}</span>
</div>`;
}

/** Tool calls and tool time spent so far, at each call's end: the budget a session used. */
function budgetChart(records: readonly AuditRecord[], start: number, span: number): string {
  const ends = records
    .map((r) => ({
      t: Date.parse(r.at) + r.totalMs - start,
      body: r.durationMs,
      ran: r.decision === "allow",
    }))
    .sort((a, b) => a.t - b.t);
  let calls = 0;
  let bodyMs = 0;
  const callPoints: string[] = ["0,40"];
  const timePoints: string[] = ["0,40"];
  const totalBody = Math.max(
    1,
    ends.reduce((sum, e) => sum + e.body, 0),
  );
  const ran = Math.max(1, ends.filter((e) => e.ran).length);
  for (const e of ends) {
    if (e.ran) calls++;
    bodyMs += e.body;
    const x = ((e.t / span) * 1000).toFixed(1);
    callPoints.push(`${x},${(40 - (calls / ran) * 38).toFixed(1)}`);
    timePoints.push(`${x},${(40 - (bodyMs / totalBody) * 38).toFixed(1)}`);
  }
  return `<svg viewBox="0 0 1000 42" preserveAspectRatio="none" role="img" aria-label="budget use over time">
<polyline class="calls" fill="none" points="${callPoints.join(" ")}"/>
<polyline class="time" fill="none" points="${timePoints.join(" ")}"/>
</svg>
<p class="legend"><span class="key calls">tool calls run: ${calls}</span> <span class="key time">tool time: ${bodyMs} ms</span></p>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px;margin:0 0 4px}
.summary,.legend{color:#555;margin:4px 0}
#filters{margin:8px 0;display:flex;gap:12px;align-items:center}
.row{display:grid;grid-template-columns:260px 1fr 360px;gap:8px;align-items:center;padding:2px 0;border-bottom:1px solid #eee}
.row.hidden{display:none}
.label{font-family:ui-monospace,monospace;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.lane{position:relative;height:14px;background:#f6f6f6}
.bar{display:flex;height:14px;min-width:3px}
.seg{display:block;height:100%}
.seg.wait,.key.wait::before{background:#f0b429}
.seg.body,.key.body::before{background:#2f80ed}
.seg.overhead,.key.overhead::before{background:#9aa5b1}
.tick{display:block;width:2px;height:100%}
.row.ok .tick{background:#27ae60}.row.failed .tick{background:#e67e22}.row.denied .tick{background:#d64545}
.row.denied .label{color:#d64545}.row.failed .label{color:#b35c00}
.row.prompted .lane{outline:1px dashed #f0b429}
.meta{color:#555;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.key::before{content:"";display:inline-block;width:10px;height:10px;margin:0 4px 0 8px}
svg{width:100%;height:60px;background:#fafafa}
polyline.calls{stroke:#2f80ed;stroke-width:2}polyline.time{stroke:#f0b429;stroke-width:2}
.key.calls::before{background:#2f80ed}.key.time::before{background:#f0b429}
`;

const SCRIPT = `
(function(){
  var rows=[].slice.call(document.querySelectorAll(".row"));
  var tool=document.getElementById("filter-tool"),decision=document.getElementById("filter-decision"),error=document.getElementById("filter-error");
  function apply(){
    var shown=0;
    rows.forEach(function(r){
      var keep=(!tool.value||r.dataset.tool===tool.value)&&(!decision.value||r.dataset.decision===decision.value)&&(!error.value||r.dataset.error===error.value);
      r.classList.toggle("hidden",!keep);if(keep)shown++;
    });
    document.getElementById("shown").textContent=shown+" of "+rows.length+" shown";
  }
  [tool,decision,error].forEach(function(s){s.addEventListener("change",apply);});
  apply();
})();
`;
