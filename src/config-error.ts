/** One problem found in a config file, with the path of the field that has it. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Thrown when a config is invalid; carries every problem at once. */
export class ConfigError extends Error {
  constructor(
    readonly problems: ConfigProblem[],
    readonly source = ".github/magis.yml",
  ) {
    super(
      `${source} is invalid:\n` +
        problems.map((p) => `- ${p.path || "(top level)"}: ${p.message}`).join("\n") +
        `\nFix these fields (or delete them to use the defaults) and try again.`,
    );
    this.name = "ConfigError";
  }
}
