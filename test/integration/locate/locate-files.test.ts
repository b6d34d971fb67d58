import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { createLlm } from "../../../src/llm/client.js";
import { StageError } from "../../../src/pipeline/errors.js";
import { locateFiles } from "../../../src/pipeline/locate/locate-files.js";
import { openJobIndex } from "../../../src/pipeline/locate/open-job-index.js";
import { MAX_PROMPT_CHARS, summarizeCandidate } from "../../../src/pipeline/locate/summarize-candidate.js";
import type { IssueText, LocatedFile, ProgressEvent, StageContext } from "../../../src/pipeline/types.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { cartIssue, makeFixtureRepo, promptPath } from "./fixture-repo.js";
import { modelSettings } from "../../support/model-settings.js";

let model: ScriptedModel;
let repo: string;
let store: SqliteStore;
let events: ProgressEvent[];

function context(root = repo): StageContext {
  const config = parseConfig({});
  return {
    root,
    repoId: "acme/shop",
    config,
    llm: createLlm({ config, settings: modelSettings(), baseURL: model.url, apiKey: "test-key", maxRetries: 0 }),
    now: () => 1_700_000_000_000,
    onProgress: (event) => events.push(event),
  };
}

const judgedPath = (content: string) => promptPath(content.split("The file")[1] ?? "");

beforeEach(async () => {
  model = await startScriptedModel();
  model.script("custodian-summarize-file", (r) => ({ summary: `Summary of ${promptPath(r.messages[1]!.content)}.` }));
  repo = makeFixtureRepo();
  store = openSqliteStore(":memory:");
  await store.migrate();
  events = [];
});

afterEach(async () => {
  await model.close();
  await store.close();
  fs.rmSync(repo, { recursive: true, force: true });
});

describe("locateFiles with the relevance check", () => {
  it("keeps the files the model judges relevant, in BM25 order, with reasons", async () => {
    model.script("custodian-judge-relevance", (r) => {
      const file = judgedPath(r.messages[1]!.content);
      return { relevant: file !== "shop/payment.py", reason: `${file} ${file === "shop/payment.py" ? "only charges cards" : "computes the total"}` };
    });
    const bm25 = await locateFiles(context(), cartIssue, null, { bm25Only: true, top: 4 });
    expect(model.requests).toHaveLength(0);
    const located = await locateFiles(context(), cartIssue, store.memory, { top: 4 });
    expect(located.map((f) => f.path)).toEqual(bm25.map((f) => f.path));
    expect(
      located
        .slice(0, 2)
        .map((f) => f.path)
        .sort(),
    ).toEqual(["shop/cart.py", "shop/discount.py"]);
    for (const file of located) {
      expect(file.kept).toBe(file.path !== "shop/payment.py");
      expect(file.reason).toBe(`${file.path} ${file.kept ? "computes the total" : "only charges cards"}`);
      expect(file.summary).toBe(`Summary of ${file.path}.`);
    }
    expect(events.at(-1)).toEqual({ stage: "located", files: located });
    expect(model.problems).toEqual([]);
  });

  it("runs at most `concurrency` judgements at once", async () => {
    let inFlight = 0;
    let most = 0;
    model.script("custodian-judge-relevance", async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight--;
      return { relevant: true, reason: "yes" };
    });
    const located = await locateFiles(context(), cartIssue, null, { top: 5, concurrency: 2 });
    expect(located.length).toBeGreaterThanOrEqual(3);
    expect(most).toBe(2);
  });

  it("says clearly when every candidate is dropped", async () => {
    model.script("custodian-judge-relevance", () => ({ relevant: false, reason: "unrelated" }));
    const error = await locateFiles(context(), cartIssue, null, { top: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).stage).toBe("locate");
    expect((error as StageError).message).toMatch(/judged none of the 3 best-matching files relevant/);
    expect((error as StageError).nextStep).toMatch(/magis retry/);
    // The verdicts are still reported, so the maintainer sees each reason.
    expect(events.at(-1)).toMatchObject({ stage: "located", files: [{ kept: false, reason: "unrelated" }, {}, {}] });
  });

  it("stores the terms it tokenized while the model judges the candidates, and before it returns, when it fails too", async () => {
    // The model holds every verdict until the terms are stored: storing them must not wait for the verdicts.
    let stored!: () => void;
    const termsStored = new Promise<void>((resolve) => (stored = resolve));
    const cache = store.memory.index;
    const write = cache.writeTerms.bind(cache);
    cache.writeTerms = async (entries, used) => {
      await write(entries, used);
      stored();
    };
    model.script("custodian-judge-relevance", async () => {
      await termsStored;
      return { relevant: false, reason: "unrelated" };
    });
    const error = await locateFiles(context(), cartIssue, store.memory, { top: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    expect(await cache.bytes()).toBeGreaterThan(0);
    // And a job that ranks only stores them before it returns.
    const other = openSqliteStore(":memory:");
    try {
      await other.migrate();
      await locateFiles(context(), cartIssue, other.memory, { bm25Only: true, top: 3 });
      expect(await other.memory.index.bytes()).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it("lists the files the clone wrote when the checkout hands them over, and ranks them as the work tree's", async () => {
    const walked = await locateFiles(context(), cartIssue, null, { bm25Only: true, top: 4 });
    const files = (fs.readdirSync(repo, { recursive: true }) as string[]).filter((rel) => fs.statSync(path.join(repo, rel)).isFile());
    const written = files.map((rel) => {
      const bytes = fs.readFileSync(path.join(repo, rel));
      return { path: rel, oid: gitBlobId(bytes), bytes };
    });
    let handed = 0;
    // A root with nothing in it: what is ranked can only have come from the files handed over.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "magis-empty-"));
    try {
      const tree = { files: written, folders: ["shop"] };
      const index = { ...openJobIndex({ terms: null, list: { exclude: [], maxFileBytes: 100_000 } }), takeWritten: () => (handed++, tree) };
      const listed = await locateFiles({ ...context(empty), index }, cartIssue, null, { bm25Only: true, top: 4 });
      expect(listed).toEqual(walked);
      expect(handed).toBe(1);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("reports its own failure, not what storing the terms met after it", async () => {
    store.memory.index.writeTerms = async () => {
      throw new TypeError("The database connection is not open");
    };
    let relevant = false;
    model.script("custodian-judge-relevance", () => ({ relevant, reason: relevant ? "yes" : "unrelated" }));
    const error = await locateFiles(context(), cartIssue, store.memory, { top: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    // With nothing of its own gone wrong, the stage does not hide such a failure either.
    relevant = true;
    await expect(locateFiles(context(), cartIssue, store.memory, { top: 3 })).rejects.toThrow("The database connection is not open");
  });

  it("shows the model at most a bounded slice of a 1 MB issue", async () => {
    model.script("custodian-judge-relevance", () => ({ relevant: true, reason: "yes" }));
    const huge: IssueText = { ...cartIssue, body: `${cartIssue.body}\n${"log line: total_price computed 42\n".repeat(32_000)}` };
    expect(huge.body.length).toBeGreaterThan(1_000_000);
    const located = await locateFiles(context(), huge, null, { top: 2 });
    expect(located.length).toBe(2);
    for (const request of model.requests) expect(request.messages[1]!.content.length).toBeLessThan(20_000);
  });

  it("works with an issue without a body, on a repository of fewer than three files, with binary and Latin-1 files", async () => {
    const small = fs.mkdtempSync(path.join(os.tmpdir(), "magis-small-"));
    try {
      fs.writeFileSync(path.join(small, "cart.py"), "def total_price(items):\n    return sum(items)\n");
      fs.writeFileSync(path.join(small, "legacy.py"), Buffer.from("# caf\xe9 total_price\n", "latin1"));
      fs.writeFileSync(path.join(small, "logo.dat"), Buffer.from([0, 1, 2, 3, 0]));
      model.script("custodian-judge-relevance", () => ({ relevant: true, reason: "yes" }));
      const located = await locateFiles(context(small), { title: "total_price is wrong", body: "", hints: [] }, null);
      expect(located.map((f) => f.path)).toEqual(["cart.py", "legacy.py"]);
    } finally {
      fs.rmSync(small, { recursive: true, force: true });
    }
  });

  it("fails clearly on an empty repository and on an issue without words", async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "magis-empty-"));
    try {
      await expect(locateFiles(context(empty), cartIssue, null)).rejects.toThrow(/no text file the Custodian can read/);
      await expect(locateFiles(context(), { title: "", body: "", hints: [] }, null)).rejects.toThrow(/contain no words/);
      await expect(locateFiles(context(), { title: "Zanzibar quokka", body: "", hints: [] }, null)).rejects.toThrow(/shares a word with the issue/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("locateFiles with the evolution memory", () => {
  it("summarizes once, reuses the same blob, and sends only the diff of a changed file", async () => {
    model.script("custodian-judge-relevance", () => ({ relevant: true, reason: "yes" }));
    model.script("custodian-summarize-diff", () => ({ message: "Adds BOGO codes." }));
    const memory = store.memory;
    await locateFiles(context(), cartIssue, memory, { top: 3 });
    const count = (prompt: string) => model.requests.filter((r) => r.prompt === prompt).length;
    expect(count("custodian-summarize-file")).toBe(3);
    await locateFiles(context(), cartIssue, memory, { top: 3 });
    expect(count("custodian-summarize-file")).toBe(3);
    fs.appendFileSync(path.join(repo, "shop/discount.py"), "\ndef bogo(total):\n    return total\n");
    const located = await locateFiles(context(), cartIssue, memory, { top: 3 });
    expect(count("custodian-summarize-file")).toBe(3);
    expect(count("custodian-summarize-diff")).toBe(1);
    expect(located.find((f) => f.path === "shop/discount.py")!.summary).toBe("Summary of shop/discount.py.\nChanged since: Adds BOGO codes.");
    expect(model.problems).toEqual([]);
  });

  // Diffing takes time in proportion to the lines of the file times the changed lines (10 s for a reformatted 400 KB
  // file, holding the event loop); past ~1,000 added and removed lines the diff is given up for a fresh summary.
  it("summarizes afresh, without a diff, a file with more changed lines than a diff of the prompt cap could show", async () => {
    model.script("custodian-summarize-diff", () => ({ message: "Changed lines." }));
    const memory = store.memory;
    // The file with its first lines replaced by short ones: `${mark}${i}` for each [mark, up to line] given.
    const file = (...marks: Array<[string, number]>) => {
      const lines = Array.from({ length: 3000 }, (_, i) => `    total_${i} = price_${i} * quantity_${i}  # unchanged line ${i}`);
      let from = 0;
      for (const [mark, to] of marks) for (; from < to; from++) lines[from] = `${mark}${from}`;
      const text = lines.join("\n");
      return { path: "shop/big.py", text, bytes: Buffer.from(text) };
    };
    await summarizeCandidate(context(), memory, file(["a", 600]));
    // 600 short lines changed: a diff of ~10,000 characters, but of 1,200 added and removed lines.
    const many = await summarizeCandidate(context(), memory, file(["b", 600]));
    expect(many.source).toBe("file");
    const few = await summarizeCandidate(context(), memory, file(["c", 300], ["b", 600]));
    expect(few.source).toBe("diff");
    const diffPrompt = model.requests.find((r) => r.prompt === "custodian-summarize-diff")!.messages[1]!.content;
    expect(diffPrompt.length).toBeLessThan(MAX_PROMPT_CHARS);
    expect(model.problems).toEqual([]);
  });
});

describe("locateFiles with the repository's history", () => {
  const past = [{ oid: "a".repeat(40), time: 1_699_000_000, message: "Cart total ignores the discount code", files: ["shop/shipping.py"] }];
  const scoreOf = (files: LocatedFile[], file: string) => files.find((f) => f.path === file)?.score ?? 0;

  it("raises the files that past commits like the issue changed; a source that fails or history_months: 0 ranks as without one", async () => {
    const without = await locateFiles(context(), cartIssue, null, { bm25Only: true, top: 10 });
    let reads = 0;
    const withHistory = (config = context().config, read = async () => past): StageContext => ({ ...context(), config, history: () => (reads++, read()) });
    const raised = await locateFiles(withHistory(), cartIssue, null, { bm25Only: true, top: 10 });
    expect(scoreOf(raised, "shop/shipping.py")).toBeGreaterThan(scoreOf(without, "shop/shipping.py"));
    expect(
      await locateFiles(
        withHistory(undefined, () => Promise.reject(new Error("no git"))),
        cartIssue,
        null,
        { bm25Only: true, top: 10 },
      ),
    ).toEqual(without);
    expect(reads).toBe(2);
    expect(await locateFiles(withHistory(parseConfig({ history_months: 0 })), cartIssue, null, { bm25Only: true, top: 10 })).toEqual(without);
    expect(reads).toBe(2);
  });
});
