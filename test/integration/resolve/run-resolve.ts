import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../../../src/cli.js";
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from "../../support/scripted-model.js";

/** A scratch folder holding a checkout and an output folder, and a scripted model to run `magis resolve` against. */
export interface ResolveRig {
  work: string;
  checkout: string;
  out: string;
  model: ScriptedModel;
  /** Runs `magis resolve` in-process against the scripted model; returns exit code and what it printed. */
  resolve(extra?: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Every file under the scratch folder, relative, with its content, to prove what was (not) written. */
  snapshot(): Map<string, string>;
  close(): Promise<void>;
}

/** Creates a checkout from `files` (text, or bytes as they are) and/or by copying `from`, writes the issue file, and starts the scripted model. */
export async function startResolveRig(source: {
  issue: string;
  files?: Record<string, string | Uint8Array>;
  from?: string;
  model?: ScriptedModelOptions;
}): Promise<ResolveRig> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-resolve-"));
  const checkout = path.join(work, "checkout");
  const out = path.join(work, "out");
  if (source.from) fs.cpSync(source.from, checkout, { recursive: true });
  for (const [file, text] of Object.entries(source.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
    fs.writeFileSync(path.join(checkout, file), text);
  }
  fs.writeFileSync(path.join(work, "issue.md"), source.issue);
  const model = await startScriptedModel(source.model);
  return {
    work,
    checkout,
    out,
    model,
    async resolve(extra = []) {
      const stdout: string[] = [];
      const stderr: string[] = [];
      const code = await main(["resolve", "--repo", checkout, "--issue-file", path.join(work, "issue.md"), "--out", out, ...extra], {
        stdout: (t) => stdout.push(t),
        stderr: (t) => stderr.push(t),
        // PATH only so that a test_command finds its tools; nothing else of this process reaches the run.
        env: { PATH: process.env.PATH, OPENAI_BASE_URL: model.url, MAGIS_MODEL: "scripted", MAGIS_DB: path.join(out, "magis.db"), MAGIS_LLM_MAX_RETRIES: "0" },
        cwd: work,
      });
      return { code, stdout: stdout.join(""), stderr: stderr.join("") };
    },
    snapshot() {
      const files = new Map<string, string>();
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else files.set(path.relative(work, full), fs.readFileSync(full, "utf8"));
        }
      };
      walk(work);
      return files;
    },
    async close() {
      await model.close();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}
