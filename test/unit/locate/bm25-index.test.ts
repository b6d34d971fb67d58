import bm25 from "wink-bm25-text-search";
import { describe, expect, it } from "vitest";
import { Bm25Index } from "../../../src/pipeline/locate/bm25-index.js";

const docs = [
  "session verify cert verify proxy",
  "response iter content chunk size chunk",
  "adapter send verify stream",
  "readme session library settings",
  "utils merge setting verify verify verify",
];
const counts = (text: string) => {
  const map = new Map<string, number>();
  for (const word of text.split(" ")) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
};
const nopause = () => undefined;

describe("Bm25Index", () => {
  it("scores as wink-bm25-text-search does (which the Custodian used before), from counts", async () => {
    const wink = bm25();
    wink.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
    wink.definePrepTasks([(text: string) => text.split(" ")]);
    docs.forEach((text, i) => wink.addDoc({ text }, String(i)));
    wink.consolidate();
    const index = new Bm25Index();
    docs.forEach((text, i) => index.add(i, counts(text)));
    index.finish({ k1: 1.2, b: 0.75 });
    for (const query of ["verify", "session settings", "chunk verify proxy", "missing"]) {
      const ours = new Map<number, number>();
      await index.search(
        query.split(" ").map((term) => [term, 1] as const),
        ours,
        nopause,
      );
      const theirs = new Map(wink.search(query, 10).map(([id, score]) => [Number(id), score]));
      expect([...ours].sort()).toEqual([...theirs].sort());
    }
  });

  it("multiplies by the weight and adds to the scores it is given", async () => {
    const index = new Bm25Index();
    docs.forEach((text, i) => index.add(i, counts(text)));
    index.finish({ k1: 1.2, b: 0.75 });
    const once = new Map<number, number>();
    await index.search([["verify", 1]], once, nopause);
    const scores = new Map<number, number>([[0, 10]]);
    await index.search([["verify", 1.5]], scores, nopause);
    expect(scores.get(0)).toBeCloseTo(10 + 1.5 * once.get(0)!, 10);
    expect(scores.get(4)).toBeCloseTo(1.5 * once.get(4)!, 10);
    expect(scores.has(1)).toBe(false);
  });

  it("caps a term's count, in its score and in the document's length, as if the document said it that often", async () => {
    const capped = new Bm25Index(2);
    const plain = new Bm25Index();
    const texts = ["verify verify verify verify proxy", "verify session", "session cert"];
    texts.forEach((text, i) => capped.add(i, counts(text)));
    [...texts.slice(0, 1).map(() => "verify verify proxy"), ...texts.slice(1)].forEach((text, i) => plain.add(i, counts(text)));
    capped.finish({ k1: 1.2, b: 0.75 });
    plain.finish({ k1: 1.2, b: 0.75 });
    const ours = new Map<number, number>();
    const theirs = new Map<number, number>();
    await capped.search(
      [
        ["verify", 1],
        ["proxy", 2],
      ],
      ours,
      nopause,
    );
    await plain.search(
      [
        ["verify", 1],
        ["proxy", 2],
      ],
      theirs,
      nopause,
    );
    expect(ours).toEqual(theirs);
  });

  it("scores the same inverted, reading only the postings of the query's terms, capped counts included", async () => {
    const texts = [...docs, "verify verify verify verify proxy"];
    const scanned = new Bm25Index(2);
    const inverted = new Bm25Index(2, true);
    texts.forEach((text, i) => scanned.add(i, counts(text)));
    texts.forEach((text, i) => inverted.add(i, counts(text)));
    scanned.finish({ k1: 1.2, b: 0.75 });
    inverted.finish({ k1: 1.2, b: 0.75 });
    for (const terms of [
      [["verify", 1]],
      [
        ["chunk", 2],
        ["verify", 0.5],
        ["missing", 1],
      ],
      [
        ["session", 1],
        ["proxy", 3],
      ],
    ] as Array<Array<[string, number]>>) {
      const a = new Map<number, number>();
      const b = new Map<number, number>();
      await scanned.search(terms, a, nopause);
      await inverted.search(terms, b, nopause);
      expect(b).toEqual(a);
      expect(b.size).toBeGreaterThan(0);
    }
  });

  it("refuses documents after finish and searches before it", async () => {
    const index = new Bm25Index();
    await expect(index.search([["a", 1]], new Map(), nopause)).rejects.toThrow(/finish\(\) before search/);
    index.add(0, counts("a b"));
    index.finish({ k1: 1.2, b: 0.75 });
    expect(() => index.add(1, counts("c"))).toThrow(/after finish/);
  });
});
