import { UsageError } from "../lib/usage-error.js";
import fs from "node:fs";
import path from "node:path";
import { modelFor, parseConfig } from "../config.js";
import { createLlm } from "../llm/client.js";
import { parseModelPrices, readDollars, type ModelPrices } from "../llm/prices.js";
import type { CommandPolicy } from "../pipeline/types.js";
import { localCommandPolicy } from "./command-policy.js";
import { explainLosses } from "../eval/oracle/explain-losses.js";
import { startOracleModel, type OracleCall } from "../eval/oracle/start-oracle-model.js";
import { EvalInputError, failToPassOf } from "../eval/read-instances.js";
import { readEnvironmentsFile } from "../eval/read-environments.js";
import { runEval } from "../eval/run-eval.js";
import type { EvalResult } from "../eval/types.js";
import { parseFlags, StopRequestedError, wholeNumberFlag, type CliIo, type Command } from "./io.js";
import { makeModel } from "./open-checkout.js";
import { readNoiseFlags } from "./read-noise-flags.js";
import { readSettings } from "../app/settings/read-settings.js";
import type { Settings } from "../app/settings/settings-table.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";

// The oracle answers as a model of its own, whatever the environment names; a failed call is not retried.
const ORACLE_MODEL = { MAGIS_MODEL: "oracle", MAGIS_LLM_MAX_RETRIES: "0" };

const usage = `Usage: magis eval --data FILE --repos DIR --out DIR [--prepare-from MIRRORS] [--limit N]
                  [--concurrency N] [--instances ID,…] [--resume] [--prices TABLE | --price-in USD --price-out USD]
                  [--allow-commands [--environments FILE]] [--oracle [--noise P [--seed S]]] [--candidates N]

Runs the resolve pipeline (as \`magis resolve\` and the App run it) on SWE-bench-style issues with known
answers, and measures each patch against the human one. Writes into --out as it goes, so a crash or
Ctrl-C loses only the instances running at that moment:
  predictions.jsonl  SWE-bench's format (instance_id, model_name_or_path, model_patch; empty when none)
  results.jsonl      per instance: located and kept files, file recall, whether the patch applies
                     (git apply --check), MAGIS Eq. 1 line coverage, the failing stage and why, tokens
                     per agent, model calls, wall time, cost in US dollars (cost_usd) where priced
  summary.md         totals (the cost in all), the cost per instance where priced, per repository, beside the MAGIS paper, and the SWE-bench harness command
                     (not for --oracle: its predictions are the gold patches)
  traces/ID.jsonl    every model call of an instance; memory.db, the evolution memory per repository
A progress line per instance goes to stderr. A missing checkout, another commit, a broken record or
a crash is that instance's failure; the run goes on.

Options:
  --data FILE         SWE-bench instances: JSON Lines (one object a line) or a JSON array (SWE-bench's
                      .json), told apart by content; each with instance_id, repo, base_commit,
                      problem_statement, patch, and hints_text (optional; passed as a hint).
                      docs/evaluation.md says where SWE-bench Lite comes from and how to convert Parquet
  --repos DIR         the checkouts, DIR/<instance_id>/ at base_commit (a git checkout, or a tree made
                      by --prepare-from); only read: each instance runs on a scratch copy
  --out DIR           where the outputs go
  --prepare-from DIR  make missing checkouts from the bare mirrors under DIR (<owner>+<name>/repo,
                      <owner>+<name>, <owner>/<name>.git or <name>.git)
  --limit N           run only the first N selected instances
  --concurrency N     instances at a time (default 2)
  --candidates N      candidate changes per Developer attempt (1–8), over each checkout's \`candidates\`
  --instances IDS     only these instance ids, comma-separated (an id --data does not hold is refused)
  --resume            continue the run in --out, skipping the instances it finished
  --prices TABLE      what each model costs, as MAGIS_MODEL_PRICES is written (over it, model by model):
                      MODEL=PROMPT/COMPLETION in US dollars per million tokens, separated by commas,
                      e.g. gpt-4o=2.50/10.00,gpt-4o-mini=0.15/0.60. An instance's cost is shown when
                      every agent that made a call has a price
  --price-in USD      the price per million prompt tokens of the run's model (the one summary.md
                      names), one entry of the same table: --prices MODEL=IN/OUT for that model
  --price-out USD     the price per million completion tokens of that model
  --allow-commands    let the repository's test_command run; off by default, since SWE-bench
                      environments (their Python versions and packages) are not set up here
  --environments FILE how each repository's instances are set up, as SWE-bench's harness specifies it:
                      JSON or YAML, owner/name → version (SWE-bench's \`version\`, or "*") → the keys
                      of .github/magis.yml that declare it (environment, setup_command, test_command,
                      test_env, test_timeout_seconds), over the checkout's own; results.jsonl records
                      per instance whether the environment became ready and in how long. Needs
                      --allow-commands
  --oracle            answer every model call from the instance's gold patch (a server on 127.0.0.1
                      reading the project's own prompts; no model needed): measures what the pipeline
                      itself loses with a perfect model, and where. Never a resolve rate.
  --noise P           with --oracle: send a share P (0 to 1) of its answers the way real models err (JSON
                      in a fence or in prose, a <think> block, a field renamed or left out, line numbers
                      off, the replaced text re-indented, a cut-off answer, a wrong path, an extra edit, a
                      verdict without its reason), one kind per answer; a corrective retry is answered
                      clean. Writes noise.jsonl: per answered call, the instance, the prompt, the kind of
                      noise (null: clean) and whether it was a corrective retry
  --seed S            the seed of the noise's draws (a whole number, default 1): the same seed sends the
                      same noise

Exit 0 when the instances ran (with or without a patch), 1 when not one got past its input (no checkout,
another commit, no mirror: the run measured nothing), 2 for a usage mistake or --data that holds no
instance (nothing is written then).

${renderSettingsHelp("eval")}`;

/** `magis eval`: the pipeline measured on SWE-bench-style instances. */
export const evalCommand: Command = {
  name: "eval",
  usage,
  run: async (args, io) => {
    const { values } = parseFlags(args, {
      data: { type: "string" },
      repos: { type: "string" },
      out: { type: "string" },
      "prepare-from": { type: "string" },
      limit: { type: "string" },
      concurrency: { type: "string" },
      candidates: { type: "string" },
      instances: { type: "string" },
      resume: { type: "boolean", default: false },
      prices: { type: "string" },
      "price-in": { type: "string" },
      "price-out": { type: "string" },
      "allow-commands": { type: "boolean", default: false },
      environments: { type: "string" },
      oracle: { type: "boolean", default: false },
      noise: { type: "string" },
      seed: { type: "string" },
    });
    for (const flag of ["data", "repos", "out"] as const) if (!values[flag]) throw new UsageError(`--${flag} is required`);
    const data = path.resolve(io.cwd, values.data!);
    if (!fs.statSync(data, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`--data ${values.data} is not a file`);
    const repos = path.resolve(io.cwd, values.repos!);
    if (values.environments && !values["allow-commands"])
      throw new UsageError("--environments sets up the repositories' commands, which run only with --allow-commands: add it, or leave --environments out");
    const environments = values.environments ? readEnvironments(path.resolve(io.cwd, values.environments)) : undefined;
    const settings = readSettings(io.env, { door: "eval" });
    const runModel = modelFor("developer", parseConfig({}), settings.model);
    const prices = readPrices(settings.model.prices, runModel, values);
    const model = { ...settings.model, prices };
    const noise = readNoiseFlags(values);
    const calls: OracleCall[] = [];
    const oracle = values.oracle ? await startOracleModel(noise ? { noise, onCall: (call) => calls.push(call) } : {}) : null;
    const stop = io.stopSignal?.();
    // Fails here, once, when no model is configured, rather than once per instance.
    if (!oracle) makeModel(parseConfig({}), { ...settings, model });
    let results: EvalResult[];
    let total: number;
    try {
      ({ results, total } = await runEval({
        data,
        repos,
        out: path.resolve(io.cwd, values.out!),
        prepareFrom: values["prepare-from"] ? path.resolve(io.cwd, values["prepare-from"]) : undefined,
        instances: values.instances
          ?.split(",")
          .map((id) => id.trim())
          .filter((id) => id !== ""),
        limit: values.limit === undefined ? undefined : wholeNumberFlag("--limit", values.limit, 1, 1_000_000),
        concurrency: values.concurrency === undefined ? 2 : wholeNumberFlag("--concurrency", values.concurrency, 1, 64),
        resume: values.resume!,
        ...(values.candidates === undefined ? {} : { candidates: wholeNumberFlag("--candidates", values.candidates, 1, 8) }),
        ...(environments ? { environments } : {}),
        prices,
        makeLlm: oracle
          ? (config, instance, checkout, signal) => {
              const failToPass = failToPassOf(instance);
              // With SWE-bench's tests of the fix, the oracle also answers the Reproducer (when --allow-commands lets it run).
              const reproduction = instance.test_patch && failToPass.length > 0 ? { testPatch: instance.test_patch, failToPass, checkout } : undefined;
              const environment = { ...ORACLE_MODEL, OPENAI_BASE_URL: oracle.add(instance.instance_id, instance.patch ?? "", checkout, reproduction) };
              return createLlm({ config, settings: readSettings(environment, { door: "eval" }).model, signal });
            }
          : (config, _instance, _checkout, signal) => createLlm({ config, settings: model, signal }),
        modelName: oracle ? "magis-oracle" : `magis-${runModel}`,
        commands: commandPolicy(values["allow-commands"]!, io, settings),
        // A model's answer may quote the key: each instance's session page holds "[redacted]" instead, commands or not.
        secrets: [settings.model.apiKey],
        ...(oracle ? { oracle: { explainLosses } } : {}),
        now: io.now ?? Date.now,
        stderr: io.stderr,
        isTTY: io.isTTY === true,
        ...(stop ? { signal: stop } : {}),
      }));
    } catch (error) {
      if (error instanceof EvalInputError) throw new UsageError(error.message);
      throw error;
    } finally {
      await oracle?.close();
      if (noise) writeNoiseLog(path.resolve(io.cwd, values.out!), calls, values.resume!);
    }
    if (oracle && oracle.problems.length > 0) io.stderr(`the oracle could not answer ${oracle.problems.length} call(s); the first: ${oracle.problems[0]}\n`);
    io.stdout(`${path.join(path.resolve(io.cwd, values.out!), "summary.md")}\n`);
    const reason: unknown = stop?.aborted ? stop.reason : null;
    if (reason) {
      const by = reason instanceof StopRequestedError ? `by ${reason.signal}` : `(${String(reason)})`;
      io.stderr(`magis eval: stopped ${by} with ${results.length} of ${total} instance(s) done; run it again with --resume to continue\n`);
      return 1;
    }
    const loaded = results.filter((result) => result.failure?.stage !== "input");
    if (results.length > 0 && loaded.length === 0) {
      io.stderr(
        `magis eval: not one of the ${results.length} instance(s) could be loaded, so nothing was measured; the first: ${results[0]!.failure!.reason}\n`,
      );
      return 1;
    }
    return 0;
  },
};

/** noise.jsonl: one line per call the noisy oracle answered (appended to by --resume). */
function writeNoiseLog(out: string, calls: OracleCall[], resume: boolean): void {
  if (!fs.existsSync(out)) return;
  const lines = calls.map((call) => `${JSON.stringify({ instance_id: call.instance, prompt: call.prompt, noise: call.noise, retry: call.retry })}\n`).join("");
  if (resume) fs.appendFileSync(path.join(out, "noise.jsonl"), lines);
  else fs.writeFileSync(path.join(out, "noise.jsonl"), lines);
}

function commandPolicy(allowed: boolean, io: CliIo, settings: Settings): CommandPolicy {
  // The repository's commands run in bubblewrap (MAGIS_SANDBOX=none runs them in the user's environment, less its credentials).
  if (allowed) return localCommandPolicy(settings, io.env, false);
  return { allowed: false, why: "magis eval runs no repository command unless --allow-commands is given: SWE-bench environments are not set up here" };
}

/** The --environments file, or a usage error that says what is wrong with it. */
function readEnvironments(file: string): ReturnType<typeof readEnvironmentsFile> {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`--environments ${file} is not a file`);
  try {
    return readEnvironmentsFile(file);
  } catch (error) {
    if (error instanceof EvalInputError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The run's price table: MAGIS_MODEL_PRICES, with --prices over it model by model, or with --price-in/--price-out as
 * the entry of the run's model. Both ways at once would say the run's price twice: refused.
 */
function readPrices(
  operator: ModelPrices,
  runModel: string,
  flags: { prices?: string | undefined; "price-in"?: string | undefined; "price-out"?: string | undefined },
): ModelPrices {
  const { prices: table, "price-in": priceIn, "price-out": priceOut } = flags;
  if (table !== undefined && (priceIn !== undefined || priceOut !== undefined)) {
    throw new UsageError(`give --prices or --price-in/--price-out, not both: --price-in/--price-out is --prices ${runModel}=IN/OUT`);
  }
  if (table !== undefined) {
    try {
      return new Map([...operator, ...parseModelPrices(table, "--prices")]);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  if (priceIn === undefined && priceOut === undefined) return operator;
  if (priceIn === undefined || priceOut === undefined) throw new UsageError("give both --price-in and --price-out (US dollars per million tokens), or neither");
  const read = (flag: string, raw: string) => {
    const value = readDollars(raw);
    if (value === undefined) throw new UsageError(`${flag} must be a price in US dollars per million tokens, such as 3 or 0.15, not '${raw}'`);
    return value;
  };
  return new Map([...operator, [runModel, { prompt: read("--price-in", priceIn), completion: read("--price-out", priceOut) }]]);
}
