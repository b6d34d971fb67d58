import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILES, GOLD, readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

let rig: EvalRig;
let run: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  rig = await startEvalRig();
  scriptTeam(rig.model);
  run = await rig.eval(["--prepare-from", rig.mirrors, "--price-in", "2.5", "--price-out", "10"]);
});

afterAll(() => rig.close());

/** Tokens of an agent that made `calls` calls, each answered with the rig's fixed usage (100 + 10). */
const used = (calls: number) => ({ prompt: 100 * calls, completion: 10 * calls, total: 110 * calls, calls });
const none = used(0);
/** The calls and tokens per prompt of an instance that made the Custodian's calls given and one call of each other agent's prompt. */
const byPrompt = (custodian: Record<string, number>) => ({
  ...Object.fromEntries(Object.entries(custodian).map(([prompt, calls]) => [prompt, { agent: "custodian", ...used(calls) }])),
  ...Object.fromEntries(
    ["manager-define-task", "manager-design-developer", "manager-open-meeting", "manager-close-meeting"].map((prompt) => [
      prompt,
      { agent: "manager", ...used(1) },
    ]),
  ),
  ...Object.fromEntries(
    ["developer-speak", "developer-refine-role", "developer-design-qa", "developer-locate-lines", "developer-write-code"].map((prompt) => [
      prompt,
      { agent: "developer", ...used(1) },
    ]),
  ),
  "qa-review": { agent: "qa", ...used(1) },
});
/** $2.5 per million prompt tokens and $10 per million completion tokens. */
const cost = (calls: number) => (100 * calls * 2.5 + 10 * calls * 10) / 1e6;

describe("magis eval on three generated instances, through the scripted model over HTTP", () => {
  it("runs all three and prints where the summary is", () => {
    expect(rig.model.problems).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${path.join(rig.out, "summary.md")}\n`);
  });

  it("writes predictions.jsonl in SWE-bench's format, an empty patch for the failed instance", () => {
    const hello = [
      "diff --git a/greet/hello.py b/greet/hello.py",
      "--- a/greet/hello.py",
      "+++ b/greet/hello.py",
      "@@ -1,2 +1,2 @@",
      " def hello(name):",
      '-    return "hello " + name',
      '+    return "Hello, " + name + "!"',
      "",
    ].join("\n");
    // The Latin-1 bytes of the context lines become U+FFFD in UTF-8 JSON: what the harness would get.
    const legacy = [
      "diff --git a/greet/legacy.py b/greet/legacy.py",
      "--- a/greet/legacy.py",
      "+++ b/greet/legacy.py",
      "@@ -1,4 +1,4 @@",
      " # -*- coding: latin-1 -*-",
      " # Written by Ren\ufffd for the caf\ufffd",
      " def legacy():",
      '-    return "coffee"',
      '+    return "tea"',
      "",
    ].join("\n");
    expect(fs.readFileSync(path.join(rig.out, "predictions.jsonl"), "utf8")).toBe(
      [
        { instance_id: "acme__greet-1", model_name_or_path: "magis-scripted", model_patch: hello },
        { instance_id: "acme__greet-2", model_name_or_path: "magis-scripted", model_patch: legacy },
        { instance_id: "acme__greet-3", model_name_or_path: "magis-scripted", model_patch: "" },
      ]
        .map((p) => JSON.stringify(p) + "\n")
        .join(""),
    );
    expect(hello).toBe(GOLD.hello);
  });

  it("writes results.jsonl: files, recall, applies, Eq. 1 coverage, failure, tokens per agent, calls, wall time and cost", () => {
    expect(readLines(path.join(rig.out, "results.jsonl"))).toEqual([
      {
        instance_id: "acme__greet-1",
        repo: "acme/greet",
        patch: true,
        applies: true,
        coverage: 1,
        gold_files: ["greet/hello.py"],
        located: ["greet/hello.py", "greet/__init__.py", "README.md", "greet/legacy.py"],
        kept: ["greet/hello.py"],
        changed: ["greet/hello.py"],
        recall_located: 1,
        recall_kept: 1,
        failure: null,
        // Four files summarized, then judged in one call; the Manager's task, Developer, opening and closing (one task: no plan call).
        tokens: { custodian: used(5), manager: used(4), developer: used(5), qa: used(1) },
        by_prompt: byPrompt({ "custodian-summarize-file": 4, "custodian-judge-relevance": 1 }),
        calls: 15,
        // Without --allow-commands nothing runs, so nothing can be reproduced: the static way, without a call.
        way: "static",
        wall_ms: 1000,
        cost_usd: cost(15),
      },
      {
        instance_id: "acme__greet-2",
        repo: "acme/greet",
        patch: true,
        applies: false,
        coverage: 1,
        gold_files: ["greet/legacy.py"],
        located: ["greet/legacy.py", "greet/__init__.py"],
        kept: ["greet/legacy.py"],
        changed: ["greet/legacy.py"],
        recall_located: 1,
        recall_kept: 1,
        failure: null,
        // The evolution memory of acme/greet holds both summaries from the first instance: only the judgement is asked.
        tokens: { custodian: used(1), manager: used(4), developer: used(5), qa: used(1) },
        by_prompt: byPrompt({ "custodian-judge-relevance": 1 }),
        calls: 11,
        // Without --allow-commands nothing runs, so nothing can be reproduced: the static way, without a call.
        way: "static",
        wall_ms: 1000,
        cost_usd: cost(11),
      },
      {
        instance_id: "acme__greet-3",
        repo: "acme/greet",
        patch: false,
        applies: null,
        coverage: 0,
        gold_files: ["README.md"],
        located: ["README.md"],
        kept: [],
        changed: [],
        recall_located: 1,
        recall_kept: 0,
        failure: { stage: "locate", reason: "the Custodian judged none of the 1 best-matching files relevant to the issue (README.md)" },
        tokens: { custodian: used(1), manager: none, developer: none, qa: none },
        by_prompt: { "custodian-judge-relevance": { agent: "custodian", ...used(1) } },
        calls: 1,
        wall_ms: 1000,
        cost_usd: cost(1),
      },
    ]);
    expect(rig.model.requests.filter((r) => r.prompt === "custodian-summarize-file")).toHaveLength(4);
  });

  it("writes summary.md with the totals, per repository, beside the paper, the failures and the harness command", () => {
    expect(fs.readFileSync(path.join(rig.out, "summary.md"), "utf8")).toBe(`# magis eval

Model: \`magis-scripted\` · data: \`dev.jsonl\` · 3 of 3 instances done · this run's wall time: 13s

## Totals

| measure | value |
| --- | --- |
| instances | 3 |
| with a patch | 2 of 3 (66.7 %) |
| patch applies (applied ratio) | 1 of 3 (33.3 %) |
| Eq. 1 line coverage, mean over all (no patch = 0) | 66.7 % |
| Eq. 1 line coverage, mean over those with a patch | 100.0 % |
| file recall of the located files (BM25 top k) | 100.0 % |
| file recall of the kept files (after the relevance check) | 66.7 % |
| failed, by stage | locate 1 |
| asked a clarifying question instead (results.jsonl \`question\`) | 0 |
| model calls | 27 |
| tokens | 3.0k (custodian 770, manager 880, developer 1.1k, qa 220) |
| cost | $0.0095 |
| wall time of the instances, summed | 3s |

## Per repository

| repository | instances | patch | applies | Eq. 1 coverage | recall (kept) | tokens | wall time |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| acme/greet | 3 | 2 | 1 of 3 (33.3 %) | 66.7 % | 66.7 % | 3.0k | 3s |

## Tokens by prompt

Summed over the instances; "an instance" divides by the 3 instances.

| prompt | agent | calls | prompt tokens | completion tokens | tokens | calls an instance | tokens an instance |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| custodian-summarize-file | custodian | 4 | 400 | 40 | 440 | 1.3 | 147 |
| custodian-judge-relevance | custodian | 3 | 300 | 30 | 330 | 1.0 | 110 |
| developer-design-qa | developer | 2 | 200 | 20 | 220 | 0.7 | 73 |
| developer-locate-lines | developer | 2 | 200 | 20 | 220 | 0.7 | 73 |
| developer-refine-role | developer | 2 | 200 | 20 | 220 | 0.7 | 73 |
| developer-speak | developer | 2 | 200 | 20 | 220 | 0.7 | 73 |
| developer-write-code | developer | 2 | 200 | 20 | 220 | 0.7 | 73 |
| manager-close-meeting | manager | 2 | 200 | 20 | 220 | 0.7 | 73 |
| manager-define-task | manager | 2 | 200 | 20 | 220 | 0.7 | 73 |
| manager-design-developer | manager | 2 | 200 | 20 | 220 | 0.7 | 73 |
| manager-open-meeting | manager | 2 | 200 | 20 | 220 | 0.7 | 73 |
| qa-review | qa | 2 | 200 | 20 | 220 | 0.7 | 73 |
| all | | 27 | 2.7k | 270 | 3.0k | 9.0 | 990 |

## Beside the MAGIS paper

| | this run | MAGIS paper (GPT-4, its SWE-bench subset, Table 2) |
| --- | ---: | ---: |
| applied ratio | 1 of 3 (33.3 %) | 97.39 % |
| resolved ratio | score predictions.jsonl (below) | 13.94 % |
| Eq. 1 line coverage | mean 66.7 % | a distribution (Fig. 5), most instances near 1; no mean given |

## Cost per instance

| instance | model calls | tokens | cost |
| --- | ---: | ---: | ---: |
| acme__greet-1 | 15 | 1.6k | $0.0053 |
| acme__greet-2 | 11 | 1.2k | $0.0039 |
| acme__greet-3 | 1 | 110 | $0.0003 |

## Failures

| instance | stage | reason |
| --- | --- | --- |
| acme__greet-3 | locate | the Custodian judged none of the 1 best-matching files relevant to the issue (README.md) |

## Score it with SWE-bench

The resolved ratio needs the repositories' tests, which the SWE-bench harness runs in Docker:

\`\`\`sh
pip install swebench
python -m swebench.harness.run_evaluation --dataset_name princeton-nlp/SWE-bench_Lite --split test \\
  --predictions_path ${path.join(rig.out, "predictions.jsonl")} --max_workers 4 --run_id magis-eval
\`\`\`

Use the dataset your \`--data\` came from as \`--dataset_name\` (\`princeton-nlp/SWE-bench\` for the full set). Instances without a
patch have an empty \`model_patch\`, so the harness counts them as unresolved.
`);
  });

  it("prints a progress line per instance: its outcome, then applied, recall of the located and kept files, tokens, elapsed and what is left", () => {
    const lines = run.stderr.split("\n").filter((l) => l.startsWith("["));
    expect(lines).toEqual([
      "[1/3] acme__greet-1: patch applies, coverage 100%, gold files 1/1 located 1/1 kept, 1.6k tokens, 1s | so far: applied 1/1, recall 100% located 100% kept, 1.6k tokens, elapsed 4s, ~8s left",
      "[2/3] acme__greet-2: patch does not apply, coverage 100%, gold files 1/1 located 1/1 kept, 1.2k tokens, 1s | so far: applied 1/2, recall 100% located 100% kept, 2.9k tokens, elapsed 8s, ~4s left",
      "[3/3] acme__greet-3: no patch (locate: the Custodian judged none of the 1 best-matching files relevant to the issue (README.md)), gold files 1/1 located 0/1 kept, 110 tokens, 1s | so far: applied 1/3, recall 100% located 67% kept, 3.0k tokens, elapsed 12s, ~0s left",
    ]);
  });

  it("leaves the checkouts as they were made, stamped with their commit, and no scratch copy behind", () => {
    for (const id of ["acme__greet-1", "acme__greet-2", "acme__greet-3"]) {
      for (const [file, content] of Object.entries(FILES)) expect(fs.readFileSync(path.join(rig.repos, id, file))).toEqual(Buffer.from(content));
      expect(fs.readFileSync(path.join(rig.repos, `${id}.base_commit`), "utf8")).toBe(`${rig.commit}\n`);
    }
    expect(fs.readdirSync(path.join(rig.out, "scratch"))).toEqual([]);
    expect(fs.readdirSync(path.join(rig.out, "traces")).sort()).toEqual(["acme__greet-1.jsonl", "acme__greet-2.jsonl", "acme__greet-3.jsonl"]);
    expect(readLines(path.join(rig.out, "traces", "acme__greet-1.jsonl"))).toHaveLength(15);
  });

  it("writes each instance's session as a page beside its trace: its stages, its diff, how it ended", () => {
    expect(fs.readdirSync(path.join(rig.out, "sessions")).sort()).toEqual(["acme__greet-1.html", "acme__greet-2.html", "acme__greet-3.html"]);
    const page = (id: string) => fs.readFileSync(path.join(rig.out, "sessions", `${id}.html`), "utf8");
    const first = page("acme__greet-1");
    for (const stage of ["locate", "plan", "kickoff", "code"]) expect(first).toContain(`data-stage="${stage}"`);
    expect(first).toContain("acme__greet-1: hello() should greet politely");
    expect(first).toContain("return &quot;Hello, &quot; + name + &quot;!&quot;");
    expect(first).toContain(`<span class="outcome succeeded">succeeded</span>`);
    expect(first).not.toMatch(/<script/i);
    expect(page("acme__greet-3")).toMatch(/<span class="outcome failed">failed<\/span> in locate/);
  });

  it("refuses an output folder holding results unless --resume, and resumes a finished run without a model call", async () => {
    const before = rig.model.requests.length;
    const again = await rig.eval();
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("holds an earlier run's results; pass --resume");
    const resumed = await rig.eval(["--resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("resuming: 3 of 3 instances are done");
    expect(rig.model.requests.length).toBe(before);
    expect(readLines(path.join(rig.out, "results.jsonl")).map((r) => r.instance_id)).toEqual(["acme__greet-1", "acme__greet-2", "acme__greet-3"]);
  });
});
