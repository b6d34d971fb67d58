/** The stages a run goes through, as named in status comments and CLI messages. */
export type StageName = "config" | "read" | "clone" | "locate" | "reproduce" | "plan" | "kickoff" | "code" | "publish";

/** A run that cannot go on: which stage, why in plain words, and what the maintainer can do next. */
export class StageError extends Error {
  constructor(
    readonly stage: StageName,
    message: string,
    readonly nextStep: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "StageError";
  }
}

/**
 * Runs one stage, turning any failure that is not already a StageError into one that names the stage.
 * The original error stays as `cause`, so a model error's own advice (raise the budget, check the key) reaches the maintainer.
 */
export async function inStage<T>(stage: StageName, nextStep: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new StageError(stage, message, nextStep, { cause: error });
  }
}
