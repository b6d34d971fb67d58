import { createHash } from "node:crypto";
import type { Node } from "web-tree-sitter";
import { grammarForPath } from "./syntax/grammar-for-path.js";
import { parseText } from "./syntax/load-parser.js";

/**
 * The text of a file as two changes are compared (MarsCode Agent's normalized candidates): the syntax
 * tree's leaves without comments, one space apart, so formatting, whitespace and comments do not tell two
 * changes apart. A file without a grammar (or one its grammar fails on) is compared as its words, whitespace dropped.
 */
export async function normalizeCode(path: string, text: string): Promise<string> {
  const grammar = grammarForPath(path);
  const tree = grammar ? await parseText(grammar, text) : null;
  if (!tree) return text.split(/\s+/).filter(Boolean).join(" ");
  try {
    const leaves: string[] = [];
    collectLeaves(tree.rootNode, leaves);
    return leaves.join(" ");
  } finally {
    tree.delete();
  }
}

/** The SHA-256 (hex) of the file's normalized text: one short key for "the same change" wherever two are compared. */
export async function normalizedDigest(path: string, text: string): Promise<string> {
  return createHash("sha256")
    .update(await normalizeCode(path, text))
    .digest("hex");
}

function collectLeaves(node: Node, leaves: string[]): void {
  if (node.type.includes("comment")) return;
  if (node.childCount === 0) {
    const text = node.text.trim();
    if (text) leaves.push(text);
    return;
  }
  for (const child of node.children) if (child) collectLeaves(child, leaves);
}
