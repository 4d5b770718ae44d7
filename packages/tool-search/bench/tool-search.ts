/**
 * Benchmark: index build time and query latency over 10,000 generated deferred tools, and
 * recall@5 on 300 labelled paraphrased queries. The reference is a naive scan that scores every
 * tool by shared query words, run in the same process, so the ratio does not depend on the machine.
 */
import { performance } from "node:perf_hooks";
import { type SearchDocument, ToolIndex, tokenize } from "../src/index.js";
import { generateQueries, generateTools } from "./corpus.js";

const tools = generateTools();
const queries = generateQueries(300);

const buildTimes: number[] = [];
let index: ToolIndex | undefined;
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  index = ToolIndex.build(tools);
  buildTimes.push(performance.now() - started);
}
if (!index) throw new Error("no index");

// Warm up, then time every query several times.
for (const q of queries) index.search(q.query, 5);
const latencies: number[] = [];
let hits5 = 0;
let hits1 = 0;
for (let round = 0; round < 5; round++) {
  for (const q of queries) {
    const started = performance.now();
    const found = index.search(q.query, 5);
    latencies.push(performance.now() - started);
    if (round === 0) {
      const names = found.map((h) => h.document.providerName);
      if (names.includes(q.expected)) hits5++;
      if (names[0] === q.expected) hits1++;
    }
  }
}

const scan = naiveScan(tools);
const scanLatencies: number[] = [];
let scanHits5 = 0;
for (const q of queries) {
  const started = performance.now();
  const found = scan(q.query, 5);
  scanLatencies.push(performance.now() - started);
  if (found.includes(q.expected)) scanHits5++;
}

const median = (xs: number[]) => quantile(xs, 0.5);
const recall5 = hits5 / queries.length;
const rows: [string, string][] = [
  ["tools", String(tools.length)],
  ["labelled queries", String(queries.length)],
  ["index build (median of 5)", `${median(buildTimes).toFixed(1)} ms`],
  ["query latency median", `${(median(latencies) * 1000).toFixed(0)} µs`],
  ["query latency p95", `${(quantile(latencies, 0.95) * 1000).toFixed(0)} µs`],
  ["recall@5", recall5.toFixed(3)],
  ["recall@1", (hits1 / queries.length).toFixed(3)],
  ["reference naive scan: median latency", `${(median(scanLatencies) * 1000).toFixed(0)} µs`],
  ["reference naive scan: recall@5", (scanHits5 / queries.length).toFixed(3)],
  ["speed-up over the naive scan (median)", `${(median(scanLatencies) / median(latencies)).toFixed(1)}x`],
];
for (const [label, value] of rows) console.log(`${label.padEnd(40)} ${value}`);
const pass = median(latencies) < 1 && recall5 >= 0.95;
console.log(`targets (median query < 1 ms, recall@5 >= 0.95): ${pass ? "met" : "NOT met"}`);

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Scores each tool by how many query terms its text contains; no idf, no weights, no synonyms. */
function naiveScan(docs: readonly SearchDocument[]): (query: string, k: number) => string[] {
  const texts = docs.map((d) => new Set(tokenize(`${d.providerName} ${d.summary} ${d.description}`)));
  return (query, k) => {
    const terms = tokenize(query);
    const scored: [number, number][] = [];
    texts.forEach((set, i) => {
      let score = 0;
      for (const t of terms) if (set.has(t)) score++;
      if (score > 0) scored.push([score, i]);
    });
    scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    return scored.slice(0, k).map(([, i]) => docs[i]?.providerName ?? "");
  };
}
