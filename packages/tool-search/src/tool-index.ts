import type { SearchDocument } from "./document.js";
import { synonymsOf, tokenize } from "./text.js";

/** One ranked match. */
export interface SearchHit {
  readonly document: SearchDocument;
  readonly score: number;
}

/** Field weights of BM25F: names and summaries say more about a tool than a long description. */
const WEIGHTS = {
  name: 3,
  summary: 2,
  description: 1,
  parameterName: 1.5,
  parameterDescription: 0.75,
} as const;
const K1 = 1.2;
const B = 0.6;
const SYNONYM_WEIGHT = 0.4;

interface Postings {
  docs: number[];
  tfs: number[];
}

/**
 * A BM25F index over search documents (provider and native names, summary, description,
 * parameter names and descriptions), with query-side synonyms. Built once per catalog view;
 * immutable afterwards. Exact names resolve without ranking.
 */
export class ToolIndex {
  readonly #documents: readonly SearchDocument[];
  readonly #postings = new Map<string, { docs: Int32Array; weights: Float32Array; idf: number }>();
  readonly #byName = new Map<string, number>();
  readonly #scores: Float64Array;

  private constructor(documents: readonly SearchDocument[]) {
    this.#documents = documents;
    this.#scores = new Float64Array(documents.length);
  }

  /** Builds the index. Cost is linear in the total text of the documents. */
  static build(documents: readonly SearchDocument[]): ToolIndex {
    const index = new ToolIndex(documents);
    index.#fill();
    return index;
  }

  get size(): number {
    return this.#documents.length;
  }

  /** The document whose provider or native name is `name` (case-insensitive), if any. */
  exact(name: string): SearchDocument | undefined {
    const i = this.#byName.get(name.trim().toLowerCase());
    return i === undefined ? undefined : this.#documents[i];
  }

  /** The best `limit` documents for a capability query, best first; ties keep catalog order. */
  search(query: string, limit = 5): SearchHit[] {
    const terms = new Map<string, number>();
    for (const term of tokenize(query)) {
      terms.set(term, Math.max(terms.get(term) ?? 0, 1));
      for (const synonym of synonymsOf(term))
        terms.set(synonym, Math.max(terms.get(synonym) ?? 0, SYNONYM_WEIGHT));
    }
    const scores = this.#scores;
    const touched: number[] = [];
    for (const [term, weight] of terms) {
      const postings = this.#postings.get(term);
      if (!postings) continue;
      const boost = weight * postings.idf;
      const { docs, weights } = postings;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i] as number;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = (scores[doc] as number) + boost * (weights[i] as number);
      }
    }
    const hits = topK(touched, scores, Math.max(0, limit)).map((doc) => ({
      document: this.#documents[doc] as SearchDocument,
      score: scores[doc] as number,
    }));
    for (const doc of touched) scores[doc] = 0;
    return hits;
  }

  #fill(): void {
    const lists = new Map<string, Postings>();
    const lengths: number[] = [];
    const termFrequencies: Map<string, number>[] = [];
    this.#documents.forEach((doc, i) => {
      this.#byName.set(doc.providerName.toLowerCase(), i);
      if (!this.#byName.has(doc.name.toLowerCase())) this.#byName.set(doc.name.toLowerCase(), i);
      const tf = new Map<string, number>();
      let length = 0;
      const add = (text: string, weight: number) => {
        for (const term of tokenize(text)) {
          tf.set(term, (tf.get(term) ?? 0) + weight);
          length += weight;
        }
      };
      add(doc.providerName, WEIGHTS.name);
      if (doc.name !== doc.providerName) add(doc.name, WEIGHTS.name / 2);
      add(doc.summary, WEIGHTS.summary);
      add(doc.description, WEIGHTS.description);
      for (const p of doc.parameters) {
        add(p.name, WEIGHTS.parameterName);
        add(p.description, WEIGHTS.parameterDescription);
      }
      lengths.push(length);
      termFrequencies.push(tf);
    });
    const average = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
    termFrequencies.forEach((tf, doc) => {
      const norm = K1 * (1 - B + (B * (lengths[doc] ?? 0)) / (average || 1));
      for (const [term, f] of tf) {
        const list = lists.get(term) ?? { docs: [], tfs: [] };
        list.docs.push(doc);
        list.tfs.push((f * (K1 + 1)) / (f + norm));
        lists.set(term, list);
      }
    });
    const n = this.#documents.length;
    for (const [term, list] of lists) {
      const df = list.docs.length;
      this.#postings.set(term, {
        docs: Int32Array.from(list.docs),
        weights: Float32Array.from(list.tfs),
        idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)),
      });
    }
  }
}

/** Indices of the `k` highest scores among `candidates`, highest first, lower index on ties. */
function topK(candidates: readonly number[], scores: Float64Array, k: number): number[] {
  const best: number[] = [];
  if (k === 0) return best;
  for (const doc of candidates) {
    const score = scores[doc] as number;
    if (best.length === k && !better(doc, score, best[k - 1] as number, scores)) continue;
    let i = best.length < k ? best.length : k - 1;
    if (best.length < k) best.push(doc);
    while (i > 0 && better(doc, score, best[i - 1] as number, scores)) {
      best[i] = best[i - 1] as number;
      i--;
    }
    best[i] = doc;
  }
  return best;
}

function better(doc: number, score: number, other: number, scores: Float64Array): boolean {
  const otherScore = scores[other] as number;
  return score > otherScore || (score === otherScore && doc < other);
}
