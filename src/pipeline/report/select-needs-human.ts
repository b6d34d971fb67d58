import type { SetAsideFile } from "../types.js";

/** The protected files the Manager says must change: while there are any, the bot's change does not resolve the issue alone. */
export function selectNeedsHuman(setAside: SetAsideFile[]): SetAsideFile[] {
  return setAside.filter((f) => f.kind === "needs-human");
}
