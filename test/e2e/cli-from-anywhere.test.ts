import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDist } from "../support/build-dist.js";
import { gitEnv } from "../support/git-server.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.js";
import { judgeFiles } from "../support/judge-files.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let work: string;
let elsewhere: string;
let repo: string;
let link: string;
let model: ScriptedModel;

beforeAll(async () => {
  // The command runs bin/magis.js, which loads dist/.
  buildDist();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-anywhere-"));
  // The working folder: unrelated to the package and to the checkout, and to stay empty.
  elsewhere = path.join(work, "elsewhere");
  fs.mkdirSync(elsewhere);
  // What `npm link` puts on the PATH: a link to bin/magis.js, run from wherever the user is.
  link = path.join(work, "bin", "magis");
  fs.mkdirSync(path.dirname(link));
  fs.symlinkSync(path.join(ROOT, "bin", "magis.js"), link);
  repo = path.join(work, "repo");
  const files: Record<string, string> = {
    "shop/cart.py": "class Cart:\n    def total_price(self):\n        return sum(i.price for i in self.items)\n",
    "shop/shipping.py": "def shipping_cost(weight):\n    return 5 + weight * 0.5\n",
    "shop/payment.py": "def charge_card(card, amount):\n    return card.charge(amount)\n",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  }
  for (const args of [
    ["init", "-q"],
    ["add", "."],
    ["commit", "-q", "-m", "A shop"],
  ])
    execFileSync("git", args, { cwd: repo, env: gitEnv() });
  fs.writeFileSync(path.join(work, "issue.md"), "# Cart.total_price ignores quantities\n\n`Cart.total_price` counts each item once.\n");
  model = await startScriptedModel();
  model
    .script("custodian-summarize-file", () => ({ summary: "A part of the shop." }))
    .script("custodian-judge-relevance", (r) => judgeFiles(r, (file) => file === "shop/cart.py"));
}, 300_000);

afterAll(async () => {
  await model?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Runs the linked `magis` in the unrelated folder with only these variables (and node and git on the PATH). */
function magis(args: string[], env: NodeJS.ProcessEnv) {
  return runInProcessGroup(link, args, { cwd: elsewhere, env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, ...env }, timeoutMs: 120_000 });
}

const locate = ["locate", "--repo", "../repo", "--issue-file", "../issue.md", "--json"];

describe("magis run through the link npm link makes, from a folder unrelated to the package", () => {
  it("shows its help and version, and says where the evolution memory goes", async () => {
    const help = await magis(["--help"], {});
    expect(help.code, help.out).toBe(0);
    for (const command of ["locate", "resolve", "eval", "serve", "action"]) expect(help.out).toContain(`  ${command} `);
    expect((await magis(["--version"], {})).out).toBe(`${VERSION}\n`);
    const resolve = await magis(["resolve", "--help"], {});
    expect(resolve.out).toContain("$XDG_CACHE_HOME/magis/magis.db, else ~/.cache/magis/magis.db. Never in the working folder.");
    expect(resolve.out).toContain("--test-command CMD");
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it("locates with the Custodian's prompts, found beside the command, and keeps the memory in XDG_CACHE_HOME, writing nothing where it runs", async () => {
    const cache = path.join(work, "cache");
    const home = path.join(work, "home");
    const run = await magis(locate, { HOME: home, XDG_CACHE_HOME: cache, OPENAI_BASE_URL: model.url, MAGIS_MODEL: "scripted", MAGIS_LLM_MAX_RETRIES: "0" });
    expect(run.code, run.out).toBe(0);
    const files = (JSON.parse(run.out.split("\n")[0]!) as { files: Array<{ path: string; kept: boolean }> }).files;
    expect(files.filter((f) => f.kept).map((f) => f.path)).toEqual(["shop/cart.py"]);
    expect(model.problems).toEqual([]);
    expect(new Set(model.requests.map((r) => r.prompt))).toEqual(new Set(["custodian-summarize-file", "custodian-judge-relevance"]));
    expect(fs.statSync(path.join(cache, "magis", "magis.db")).size).toBeGreaterThan(0);
    expect(fs.existsSync(home)).toBe(false);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it("falls back to ~/.cache when XDG_CACHE_HOME is unset or relative", async () => {
    const home = path.join(work, "home-bm25");
    for (const xdg of [{}, { XDG_CACHE_HOME: "relative/cache" }]) {
      const run = await magis([...locate, "--bm25-only"], { HOME: home, ...xdg });
      expect(run.code, run.out).toBe(0);
      expect((JSON.parse(run.out) as { files: Array<{ path: string }> }).files[0]!.path).toBe("shop/cart.py");
      expect(fs.existsSync(path.join(home, ".cache", "magis", "magis.db"))).toBe(true);
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    }
  });

  it("asks for MAGIS_DB when neither HOME nor XDG_CACHE_HOME names a folder, writing nothing", async () => {
    const run = await magis([...locate, "--bm25-only"], {});
    expect(run.code).toBe(2);
    expect(run.out).toContain(
      "magis locate: neither XDG_CACHE_HOME nor HOME names a folder (an absolute path), so the evolution memory has no place; set MAGIS_DB to the SQLite file to keep it in",
    );
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
