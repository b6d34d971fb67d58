import type { Pause } from "./slice-work.js";

/** BM25 parameters: term-frequency saturation and length normalization. */
export interface Bm25Params {
  k1: number;
  b: number;
}

// Terms whose postings are scored between two pauses.
const TERMS_PER_SLICE = 2_000;

/**
 * An Okapi BM25 index over documents given as term frequencies, scored as wink-bm25-text-search scores
 * them (idf = ln((N − n + 0.5) / (n + 0.5) + 1), each term's score rounded to 4 decimals), which the
 * Custodian used before: fed counts, it skips wink's per-occurrence bookkeeping and builds a
 * repository's index from remembered counts in a tenth of the time. Add every document, `finish`,
 * then search.
 */
export class Bm25Index {
  // Per term: the documents holding it and, until finish, their frequencies; after it, their scores.
  private readonly postings = new Map<string, { docs: number[]; values: number[] }>();
  private readonly lengths: number[] = [];
  private documents = 0;
  private finished = false;

  /** Adds document `doc` (ids are small integers) with its term frequencies. */
  add(doc: number, frequencies: Map<string, number>): void {
    if (this.finished) throw new Error("Bm25Index: documents cannot be added after finish()");
    let length = 0;
    for (const [term, frequency] of frequencies) {
      const posting = this.postings.get(term);
      if (posting) {
        posting.docs.push(doc);
        posting.values.push(frequency);
      } else {
        this.postings.set(term, { docs: [doc], values: [frequency] });
      }
      length += frequency;
    }
    this.lengths[doc] = length;
    this.documents++;
  }

  /** Turns frequencies into scores; awaits `pause` now and then so a server's event loop is not held. */
  async finish({ k1, b }: Bm25Params, pause: Pause): Promise<void> {
    this.finished = true;
    let total = 0;
    for (const length of this.lengths) total += length ?? 0;
    const average = total / Math.max(1, this.documents);
    let slice = 0;
    for (const { docs, values } of this.postings.values()) {
      const idf = Math.log((this.documents - docs.length + 0.5) / (docs.length + 0.5) + 1);
      for (let i = 0; i < docs.length; i++) {
        const frequency = values[i]!;
        const normalization = 1 - b + (b * this.lengths[docs[i]!]!) / (average || 1);
        values[i] = Math.round(((frequency * (k1 + 1)) / (k1 * normalization + frequency)) * idf * 1e4) / 1e4;
      }
      if (++slice % TERMS_PER_SLICE === 0) await pause();
    }
  }

  /** Adds `weight` times the score of each document holding each term to `scores`. */
  search(terms: string[], weight: number, scores: Map<number, number>): void {
    if (!this.finished) throw new Error("Bm25Index: call finish() before search()");
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i]!;
        scores.set(doc, (scores.get(doc) ?? 0) + posting.values[i]! * weight);
      }
    }
  }
}
