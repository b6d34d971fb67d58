import { parseConfig, type MagisConfig } from "../../../src/config.js";
import type { Llm } from "../../../src/llm/types.js";
import type { ProgressEvent, StageContext } from "../../../src/pipeline/types.js";

/** A StageContext for stage unit tests, recording progress events. */
export function testContext(llm: Llm, root = "/nonexistent", config: Partial<MagisConfig> = {}): StageContext & { events: ProgressEvent[] } {
  const events: ProgressEvent[] = [];
  return {
    root,
    repoId: "test/repo",
    config: { ...parseConfig({}), ...config },
    llm,
    now: () => 0,
    onProgress: (event) => events.push(event),
    events,
  };
}
