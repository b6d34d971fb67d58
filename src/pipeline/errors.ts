/** The stages a run goes through, as named in status comments and CLI messages. */
export type StageName = "config" | "clone" | "locate" | "plan" | "kickoff" | "code" | "publish";

/** A run that cannot go on: which stage, why in plain words, and what the maintainer can do next. */
export class StageError extends Error {
  constructor(
    readonly stage: StageName,
    message: string,
    readonly nextStep: string,
  ) {
    super(message);
    this.name = "StageError";
  }
}
