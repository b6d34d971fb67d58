import { cleanText } from "../../lib/clean-text.js";

/**
 * The guidance of a `/magis <name> [guidance]` comment whose command is its first line (the rest of that line), or
 * null when the comment is not that command: how `/magis retry` and `/magis go` are read.
 */
export function firstLineCommand(body: string, name: string): { guidance: string } | null {
  const firstLine = cleanText(body).split("\n")[0] ?? "";
  const match = new RegExp(`^/magis\\s+${name}(?:\\s+(.*))?$`, "i").exec(firstLine.trim());
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}
