import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { createLlm } from "../../../src/llm/client.js";
import type { AskRequest } from "../../../src/llm/types.js";
import { StageError } from "../../../src/pipeline/errors.js";
import { JUDGED_AT_ONCE, shownPaths } from "../../../src/pipeline/locate/judge-relevance.js";
import { locateFiles } from "../../../src/pipeline/locate/locate-files.js";
import { openJobIndex } from "../../../src/pipeline/locate/open-job-index.js";
import { WHOLE_FILE_CHARS } from "../../../src/pipeline/locate/outline-file.js";
import { MAX_PROMPT_CHARS, summarizeCandidate } from "../../../src/pipeline/locate/summarize-candidate.js";
import type { IssueText, LocatedFile, ProgressEvent, StageContext } from "../../../src/pipeline/types.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { cartIssue, makeFixtureRepo, promptPath } from "./fixture-repo.js";
import { modelSettings } from "../../support/model-settings.js";
import { judgeFiles } from "../../support/judge-files.js";

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
    model.script("custodian-judge-relevance", (r) =>
      judgeFiles(r, (file) => ({
        relevant: file !== "shop/payment.py",
        reason: `${file} ${file === "shop/payment.py" ? "only charges cards" : "computes the total"}`,
      })),
    );
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

  it("runs at most `concurrency` summaries at once, then judges the candidates in one call that shows the issue once", async () => {
    let inFlight = 0;
    let most = 0;
    const ctx = context();
    const { llm } = ctx;
    // The summaries in flight, counted where the stage asks for them.
    ctx.llm = {
      async ask<T>(request: AskRequest<T>) {
        if (request.prompt !== "custodian-summarize-file") return llm.ask(request);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return llm.ask(request).finally(() => inFlight--);
      },
    };
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => true));
    const located = await locateFiles(ctx, cartIssue, null, { top: 5, concurrency: 2 });
    expect(located.length).toBeGreaterThanOrEqual(3);
    expect(most).toBe(2);
    const judging = model.requests.filter((r) => r.prompt === "custodian-judge-relevance");
    expect(judging).toHaveLength(1);
    const user = judging[0]!.messages[1]!.content;
    expect(user.split(cartIssue.body)).toHaveLength(2);
    for (const file of located) expect(user).toContain(`### \`${file.path}\`\n\nSummary of ${file.path}.`);
  });

  it("judges more candidates than one call holds in several calls, each file once, the verdicts in BM25 order", async () => {
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, (file) => ({ relevant: file.endsWith(".py"), reason: `about ${file}` })));
    const files = Array.from({ length: JUDGED_AT_ONCE + 3 }, (_, i) => [`shop/extra_${i}.py`, `def total_price_${i}(cart):\n    return cart\n`]);
    for (const [rel, text] of files) fs.writeFileSync(path.join(repo, rel!), text!);
    const located = await locateFiles(context(), cartIssue, null, { top: JUDGED_AT_ONCE + 3 });
    const judging = model.requests.filter((r) => r.prompt === "custodian-judge-relevance");
    expect(judging).toHaveLength(2);
    const shown = judging.flatMap((r) => shownPaths(r.messages[1]!.content));
    expect(shown.sort()).toEqual(located.map((f) => f.path).sort());
    for (const file of located) expect(file).toMatchObject({ kept: file.path.endsWith(".py"), reason: `about ${file.path}` });
    expect(model.problems).toEqual([]);
  });

  it("sends an answer that leaves a file out or names one not shown back to the model, naming them", async () => {
    let asked = 0;
    model.script("custodian-judge-relevance", (r) => {
      const answer = judgeFiles(r, () => true);
      if (asked++ > 0) return answer;
      return { files: [...answer.files.slice(1), { path: "shop/nowhere.py", reason: "made up", relevant: true }] };
    });
    const located = await locateFiles(context(), cartIssue, null, { top: 3 });
    const judging = model.requests.filter((r) => r.prompt === "custodian-judge-relevance");
    expect(judging).toHaveLength(2);
    const correction = judging[1]!.messages.at(-1)!.content;
    expect(correction).toContain(`no verdict for "${located[0]!.path}"`);
    expect(correction).toContain('"shop/nowhere.py" is not one of the files shown');
    expect(located.every((f) => f.kept)).toBe(true);
  });

  it("says clearly when every candidate is dropped", async () => {
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => ({ relevant: false, reason: "unrelated" })));
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
    model.script("custodian-judge-relevance", async (r) => {
      await termsStored;
      return judgeFiles(r, () => false);
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
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => relevant));
    const error = await locateFiles(context(), cartIssue, store.memory, { top: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageError);
    // With nothing of its own gone wrong, the stage does not hide such a failure either.
    relevant = true;
    await expect(locateFiles(context(), cartIssue, store.memory, { top: 3 })).rejects.toThrow("The database connection is not open");
  });

  it("shows the model at most a bounded slice of a 1 MB issue", async () => {
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => true));
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
      model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => true));
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
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => true));
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

  it("summarizes a long file from its outline, keeps the summary when only a body changes, and diffs the outline when a definition does", async () => {
    model.script("custodian-judge-relevance", (r) => judgeFiles(r, () => true));
    model.script("custodian-summarize-diff", () => ({ message: "Adds loyalty_points()." }));
    // Over WHOLE_FILE_CHARS: twenty functions, each with a docstring and a long body.
    const body = (i: number, factor: number) =>
      Array.from({ length: 8 }, (_, j) => `    step_${j} = cart.total_price * ${factor} + ${i * j}  # rounding rule ${j}`).join("\n");
    const big = (factor: number, extra = "") =>
      Array.from(
        { length: 20 },
        (_, i) => `def discount_rule_${i}(cart):\n    """Applies discount rule ${i} to the cart total."""\n${body(i, factor)}\n    return step_7\n`,
      ).join("\n") + extra;
    const file = path.join(repo, "shop/rules.py");
    fs.writeFileSync(file, big(2));
    expect(big(2).length).toBeGreaterThan(WHOLE_FILE_CHARS);
    const memory = store.memory;
    const count = (prompt: string) => model.requests.filter((r) => r.prompt === prompt).length;
    const summarized = () => model.requests.filter((r) => r.prompt === "custodian-summarize-file" && r.messages[1]!.content.includes("shop/rules.py"));
    await locateFiles(context(), cartIssue, memory, { top: 10 });
    expect(summarized()).toHaveLength(1);
    const asked = summarized()[0]!.messages[1]!.content;
    expect(asked).toContain("from its outline");
    expect(asked).toContain('def discount_rule_19(cart):\n    """Applies discount rule 19 to the cart total."""\n    ...');
    expect(asked).not.toContain("rounding rule");
    const files = count("custodian-summarize-file");

    // Only the bodies change: the outline is the same, so the summary stands and no model call is made for it.
    fs.writeFileSync(file, big(3));
    const again = await locateFiles(context(), cartIssue, memory, { top: 10 });
    expect(count("custodian-summarize-file")).toBe(files);
    expect(count("custodian-summarize-diff")).toBe(0);
    expect(again.find((f) => f.path === "shop/rules.py")!.summary).toBe("Summary of shop/rules.py.");

    // A new definition changes the outline: the diff of the outlines goes to the model, not the file's.
    fs.writeFileSync(file, big(3, '\ndef loyalty_points(cart):\n    """Points for the cart."""\n    return 1\n'));
    const changed = await locateFiles(context(), cartIssue, memory, { top: 10 });
    expect(count("custodian-summarize-diff")).toBe(1);
    const diff = model.requests.find((r) => r.prompt === "custodian-summarize-diff")!.messages[1]!.content;
    expect(diff).toContain("+def loyalty_points(cart):");
    expect(diff).toContain("a unified diff of its outline");
    expect(diff).not.toContain("rounding rule");
    expect(changed.find((f) => f.path === "shop/rules.py")!.summary).toBe("Summary of shop/rules.py.\nChanged since: Adds loyalty_points().");
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
