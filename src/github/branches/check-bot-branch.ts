/** Throws unless `branch` is one the bot may commit to: it has the bot's prefix and is not the default branch. */
export function checkBotBranch(branch: string, prefix: string, defaultBranch: string): void {
  const name = branch.replace(/^refs\/heads\//, "");
  if (name === defaultBranch) {
    throw new Error(`refusing to commit to '${name}': it is the default branch; the bot only commits to its own '${prefix}…' branches`);
  }
  if (!name.startsWith(prefix) || name.length === prefix.length) {
    throw new Error(`refusing to commit to '${name}': the bot only commits to branches named '${prefix}…'`);
  }
}
