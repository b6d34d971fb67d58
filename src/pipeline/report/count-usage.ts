import { AGENTS, modelFor, type Agent, type MagisConfig } from "../../config.js";
import type { Llm } from "../../llm/types.js";
import type { LlmStats } from "../../llm/usage-ledger.js";
import type { UsageReport } from "../types.js";

// A client that does not say its models (a test's fake) reports the config's.
const NO_MODEL_NAMES = { agentModels: {} };

/**
 * An Llm that counts calls and tokens per agent as they pass through, for the report's usage section
 * (a client may serve more than one run, so its own totals are not this run's). Models come from the
 * client when it knows them (it has the environment's model settings), else from the config.
 */
export function countUsage(llm: Llm, config: MagisConfig): { llm: Llm; report: (wallMs: number) => UsageReport } {
  const known = (llm as Partial<{ stats(): LlmStats }>).stats?.().byAgent;
  const byAgent = Object.fromEntries(
    AGENTS.map((agent) => [
      agent,
      { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, model: known?.[agent].model ?? modelFor(agent, config, NO_MODEL_NAMES) },
    ]),
  ) as UsageReport["byAgent"];
  const counting: Llm = {
    async ask(request) {
      const result = await llm.ask(request);
      const entry = byAgent[request.agent as Agent];
      // An ask for several samples is one request, or more where the server ignores `n`.
      entry.calls += result.sampled?.requests ?? 1;
      entry.promptTokens += result.usage.promptTokens;
      entry.completionTokens += result.usage.completionTokens;
      entry.totalTokens += result.usage.totalTokens;
      return result;
    },
  };
  const report = (wallMs: number): UsageReport => ({
    calls: AGENTS.reduce((sum, agent) => sum + byAgent[agent].calls, 0),
    byAgent: structuredClone(byAgent),
    wallMs,
  });
  return { llm: counting, report };
}
