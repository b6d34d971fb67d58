import { describe, expect, it } from "vitest";
import { START, type ContractContext } from "./contract-context.js";

/** JSON of `length` characters, as the index cache holds. */
function terms(length: number, word = "x"): string {
  const json = JSON.stringify({ [word]: "" });
  return JSON.stringify({ [word]: "y".repeat(length - json.length) });
}

/** The contract of the evolution memory and its index cache (MemoryStore, TermCache); the cache bounded by CONTRACT_INDEX_CACHE_BYTES. */
export function describeMemoryContract(context: ContractContext): void {
  const store = context.store;
  describe("evolution memory", () => {
    const file = { blobId: "a1b2c3", summary: "Parses the config file.", text: "export function parse() {}\n" };

    it("recalls nothing of a file never remembered", async () => {
      expect(await store().memory.recall("octo/widgets", "src/parse.ts")).toBeNull();
    });

    it("recalls what it remembered, per repository and path", async () => {
      await store().memory.remember("octo/widgets", "src/parse.ts", file);
      expect(await store().memory.recall("octo/widgets", "src/parse.ts")).toEqual(file);
      expect(await store().memory.recall("octo/gadgets", "src/parse.ts")).toBeNull();
      expect(await store().memory.recall("octo/widgets", "src/other.ts")).toBeNull();
    });

    it("replaces the version it held with the newer one", async () => {
      await store().memory.remember("octo/widgets", "src/parse.ts", file);
      const newer = { blobId: "d4e5f6", summary: "Parses and validates the config file.", text: "export function parse() { validate(); }\n" };
      await store().memory.remember("octo/widgets", "src/parse.ts", newer, START + 1);
      expect(await store().memory.recall("octo/widgets", "src/parse.ts")).toEqual(newer);
    });

    it("forgets every file of the repositories named, and of every repository of the accounts named, and nothing else", async () => {
      const memory = store().memory;
      for (const repo of ["octo/widgets", "octo/gadgets", "octo/my_tool", "octopus/widgets", "oct/o", "octo_x/y"]) {
        await memory.remember(repo, "src/parse.ts", file);
        await memory.remember(repo, "src/other.ts", file);
      }
      expect(await memory.forget({ repos: ["octo/widgets", "nobody/nothing"] })).toBe(2);
      expect(await memory.recall("octo/widgets", "src/parse.ts")).toBeNull();
      expect(await memory.recall("octo/gadgets", "src/parse.ts")).toEqual(file);
      // `_` and `%` are characters, not wildcards: `oct_` and `oc%` name no account here.
      expect(await memory.forget({ owners: ["oct_", "oc%"], repos: ["octo/my%"] })).toBe(0);
      // An account: its repositories, not those of the accounts its name begins.
      expect(await memory.forget({ owners: ["octo"] })).toBe(4);
      for (const repo of ["octo/gadgets", "octo/my_tool"]) expect(await memory.recall(repo, "src/other.ts")).toBeNull();
      for (const repo of ["octopus/widgets", "oct/o", "octo_x/y"]) expect(await memory.recall(repo, "src/other.ts")).toEqual(file);
      expect(await memory.forget({ repos: [], owners: [] })).toBe(0);
      expect(await memory.forget({ repos: ["octo_x/y"], owners: ["oct"] })).toBe(4);
      expect(await memory.recall("octopus/widgets", "src/parse.ts")).toEqual(file);
    });

    it("gives back any text exactly: accents, CJK, emoji, a NUL, CRLF, 200 kB", async () => {
      const text = `// Ünïcödé — 世界 🚀 e\u0301\r\n\u0000\tend\n${"const a = 1; // ✓\n".repeat(11_000)}`;
      await store().memory.remember("octo/widgets", "src/ünï.ts", { blobId: "f00", summary: "Ein Modul — 模块 📦", text });
      expect(await store().memory.recall("octo/widgets", "src/ünï.ts")).toEqual({ blobId: "f00", summary: "Ein Modul — 模块 📦", text });
    });
  });

  describe("index cache", () => {
    const index = () => store().memory.index;

    it("reads back the terms of the keys it holds, of those asked", async () => {
      await index().writeTerms(
        [
          ["k1", terms(50, "a")],
          ["k2", terms(60, "b")],
        ],
        [],
      );
      expect(await index().readTerms(["k1", "k3"])).toEqual(new Map([["k1", terms(50, "a")]]));
      expect(await index().readTerms(["k1", "k2"])).toEqual(
        new Map([
          ["k1", terms(50, "a")],
          ["k2", terms(60, "b")],
        ]),
      );
      expect(await index().readTerms([])).toEqual(new Map());
    });

    it("keeps what it holds for a key written again, definitions included (a key names a blob's bytes: two jobs at once write the same terms)", async () => {
      await index().writeTerms([["k1", terms(50, "a")]], []);
      await index().writeDefinitions("k1", '[{"name":"parse"}]');
      await index().writeTerms([["k1", terms(50, "a")]], []);
      expect(await index().readTerms(["k1"])).toEqual(new Map([["k1", terms(50, "a")]]));
      expect(await index().readDefinitions("k1")).toBe('[{"name":"parse"}]');
      expect(await index().bytes()).toBe(50 + '[{"name":"parse"}]'.length);
    });

    it("writes a key given twice in one batch once, with its last terms", async () => {
      await index().writeTerms(
        [
          ["k1", terms(70, "b")],
          ["k1", terms(80, "c")],
        ],
        [],
      );
      expect(await index().readTerms(["k1"])).toEqual(new Map([["k1", terms(80, "c")]]));
      expect(await index().bytes()).toBe(80);
    });

    it("holds definitions only for keys whose terms it holds, counting their characters", async () => {
      await index().writeTerms([["k1", terms(50)]], []);
      expect(await index().readDefinitions("k1")).toBeNull();
      await index().writeDefinitions("k1", '[{"name":"parse","line":3}]');
      await index().writeDefinitions("k2", '[{"name":"lost"}]');
      expect(await index().readDefinitions("k1")).toBe('[{"name":"parse","line":3}]');
      expect(await index().readDefinitions("k2")).toBeNull();
      expect(await index().readTerms(["k2"])).toEqual(new Map());
      expect(await index().bytes()).toBe(50 + '[{"name":"parse","line":3}]'.length);
    });

    it("counts the characters it holds, and forgets everything on clear", async () => {
      expect(await index().bytes()).toBe(0);
      await index().writeTerms(
        [
          ["k1", terms(100)],
          ["k2", terms(150)],
        ],
        [],
      );
      expect(await index().bytes()).toBe(250);
      await index().clear();
      expect(await index().bytes()).toBe(0);
      expect(await index().readTerms(["k1", "k2"])).toEqual(new Map());
    });

    it("past its bound, evicts the least recently used down to 90 % of it", async () => {
      for (let i = 0; i < 10; i++) {
        context.advance(1);
        await index().writeTerms([[`k${i}`, terms(100)]], []);
      }
      expect(await index().bytes()).toBe(1000);
      context.advance(1);
      await index().writeTerms([["k10", terms(100)]], []);
      expect(await index().bytes()).toBe(900);
      const held = await index().readTerms(Array.from({ length: 11 }, (_, i) => `k${i}`));
      expect([...held.keys()].sort()).toEqual(["k10", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]);
    });

    it("keeps the keys a job used: writing marks them used now", async () => {
      for (let i = 0; i < 10; i++) {
        context.advance(1);
        await index().writeTerms([[`k${i}`, terms(100)]], []);
      }
      context.advance(1);
      await index().writeTerms([["k10", terms(250)]], ["k0", "k1", "k2"]);
      const held = await index().readTerms(Array.from({ length: 11 }, (_, i) => `k${i}`));
      expect([...held.keys()].sort()).toEqual(["k0", "k1", "k10", "k2", "k7", "k8", "k9"]);
      expect(await index().bytes()).toBe(850);
    });

    it("counts definitions toward the bound, and marks their key used", async () => {
      for (let i = 0; i < 3; i++) {
        context.advance(1);
        await index().writeTerms([[`k${i}`, terms(300)]], []);
      }
      context.advance(1);
      await index().writeDefinitions("k0", JSON.stringify(["d".repeat(96)]));
      context.advance(1);
      await index().writeTerms([["k3", terms(10)]], []);
      expect([...(await index().readTerms(["k0", "k1", "k2", "k3"])).keys()].sort()).toEqual(["k0", "k2", "k3"]);
      expect(await index().bytes()).toBe(710);
    });
  });
}
