import type { Pause } from "../../lib/slice-work.js";

/** BM25 parameters: term-frequency saturation and length normalization. */
export interface Bm25Params {
  k1: number;
  b: number;
}

// Documents looked through between two pauses.
const DOCS_PER_SLICE = 500;

/** The documents holding one term, and the term's (capped) count in each. */
interface Postings {
  docs: number[];
  counts: number[];
}

/**
 * An Okapi BM25 index over documents given as term frequencies, scored as wink-bm25-text-search scores
 * them (idf = ln((N − n + 0.5) / (n + 0.5) + 1), each term's score rounded to 4 decimals), which the
 * Custodian used before. By default it keeps each document's frequencies as given and looks the query's
 * terms up in them at search time: a job asks one or two queries of an index it builds afresh, and
 * inverting every term of a repository's text (a million postings for sympy) took longer than all its
 * searches. Documents of a few terms each (paths and defined names) are worth inverting as they are
 * added (`inverted`): a search then reads only the postings of its terms instead of every document.
 * Add every document, `finish`, then search.
 */
export class Bm25Index {
  private readonly docs: Array<Map<string, number>> = [];
  private readonly postings: Map<string, Postings> | null;
  private readonly lengths: number[] = [];
  private documents = 0;
  private average = 0;
  private params: Bm25Params | null = null;

  /** `maxCount` caps a term's count in a document (and its share of the document's length); `inverted` keeps postings per term. */
  constructor(
    private readonly maxCount = Infinity,
    inverted = false,
  ) {
    this.postings = inverted ? new Map() : null;
  }

  /** Adds document `doc` (ids are small integers) with its term frequencies, which the index keeps as they are. */
  add(doc: number, frequencies: Map<string, number>): void {
    if (this.params) throw new Error("Bm25Index: documents cannot be added after finish()");
    let length = 0;
    for (const [term, frequency] of frequencies) {
      const count = Math.min(frequency, this.maxCount);
      length += count;
      if (!this.postings) continue;
      const postings = this.postings.get(term);
      if (postings) {
        postings.docs.push(doc);
        postings.counts.push(count);
      } else this.postings.set(term, { docs: [doc], counts: [count] });
    }
    if (!this.postings) this.docs[doc] = frequencies;
    this.lengths[doc] = length;
    this.documents++;
  }

  /** Fixes the parameters and the average document length. */
  finish(params: Bm25Params): void {
    let total = 0;
    for (const length of this.lengths) total += length ?? 0;
    this.average = total / Math.max(1, this.documents) || 1;
    this.params = params;
  }

  /**
   * Adds, for each term and its weight in order, `weight` times the score of each document holding the term
   * to `scores`; awaits `pause` now and then so a server's event loop is not held.
   */
  async search(terms: ReadonlyArray<readonly [string, number]>, scores: Map<number, number>, pause: Pause): Promise<void> {
    if (!this.params) throw new Error("Bm25Index: call finish() before search()");
    const { k1, b } = this.params;
    const hits = this.postings ? terms.map(([term]) => this.postings!.get(term) ?? { docs: [], counts: [] }) : await this.scan(terms, pause);
    for (const [t, { docs, counts }] of hits.entries()) {
      const weight = terms[t]![1];
      const idf = Math.log((this.documents - docs.length + 0.5) / (docs.length + 0.5) + 1);
      for (let i = 0; i < docs.length; i++) {
        const frequency = counts[i]!;
        const normalization = 1 - b + (b * this.lengths[docs[i]!]!) / this.average;
        const score = Math.round(((frequency * (k1 + 1)) / (k1 * normalization + frequency)) * idf * 1e4) / 1e4;
        scores.set(docs[i]!, (scores.get(docs[i]!) ?? 0) + score * weight);
      }
    }
  }

  /** The postings of each term, found by looking it up in every document. */
  private async scan(terms: ReadonlyArray<readonly [string, number]>, pause: Pause): Promise<Postings[]> {
    const hits = terms.map((): Postings => ({ docs: [], counts: [] }));
    for (let doc = 0; doc < this.docs.length; doc++) {
      const frequencies = this.docs[doc];
      if (frequencies === undefined) continue;
      for (let t = 0; t < terms.length; t++) {
        const count = frequencies.get(terms[t]![0]);
        if (count === undefined) continue;
        hits[t]!.docs.push(doc);
        hits[t]!.counts.push(Math.min(count, this.maxCount));
      }
      if (doc % DOCS_PER_SLICE === DOCS_PER_SLICE - 1) await pause();
    }
    return hits;
  }
}
