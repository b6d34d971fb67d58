/** Throws unless `branch` is one the bot may push to: it has the bot's prefix and is not the default branch. */
export function checkBotBranch(branch: string, prefix: string, defaultBranch: string): void {
  const name = branch.replace(/^refs\/heads\//, "");
  if (name === defaultBranch) {
    throw new Error(`refusing to push to '${name}': it is the default branch; the bot only pushes to its own '${prefix}…' branches`);
  }
  if (!name.startsWith(prefix) || name.length === prefix.length) {
    throw new Error(`refusing to push to '${name}': the bot only pushes to branches named '${prefix}…'`);
  }
}
