// wink-bm25-text-search ships no types; this declares the part of its API the Custodian uses.
declare module "wink-bm25-text-search" {
  interface Bm25Config {
    fldWeights: Record<string, number>;
    bm25Params?: { k1?: number; b?: number; k?: number };
    ovFldNames?: string[];
  }
  export interface Bm25Engine {
    defineConfig(config: Bm25Config): boolean;
    definePrepTasks(tasks: Array<(input: string) => string[]>, field?: string): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(precision?: number): boolean;
    /** Results as [id, score] pairs, best first. */
    search(text: string, limit?: number): Array<[string, number]>;
    getTotalDocs(): number;
  }
  const bm25: () => Bm25Engine;
  export default bm25;
}
