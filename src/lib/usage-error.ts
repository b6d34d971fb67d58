/** A mistake in how a command was called (a flag, a role the settings cannot serve): printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
