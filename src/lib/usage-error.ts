/**
 * A mistake in how a command was called (a flag, a role the settings cannot serve): printed as one line, exit code 2.
 * `details`, when given, are lines printed below it that say what to do instead of pointing at --help.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}
