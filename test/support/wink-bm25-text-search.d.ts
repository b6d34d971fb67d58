// wink-bm25-text-search ships no types; this declares the part of its API that the BM25 reference test and the plain-BM25 benchmark use.
declare module "wink-bm25-text-search" {
  interface Bm25Config {
    fldWeights: Record<string, number>;
    bm25Params?: { k1?: number; b?: number; k?: number };
    ovFldNames?: string[];
  }
  export interface Bm25Engine {
    defineConfig(config: Bm25Config): boolean;
    /** The tasks get a document's field values as given to addDoc (wink does not look at them first), and a search's text. */
    definePrepTasks(tasks: Array<((input: string) => string[]) | ((input: string | string[]) => string[])>, field?: string): number;
    addDoc(doc: Record<string, string | string[]>, id: string | number): number;
    consolidate(precision?: number): boolean;
    /** Results as [id, score] pairs, best first. */
    search(text: string, limit?: number): Array<[string, number]>;
    getTotalDocs(): number;
  }
  const bm25: () => Bm25Engine;
  export default bm25;
}
