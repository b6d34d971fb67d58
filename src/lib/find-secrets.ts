import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";

type Rule = (typeof recommended.rules)[number];
type Context = Parameters<Rule["create"]>[0];
type Source = Parameters<NonNullable<ReturnType<Rule["create"]>["file"]>>[0];

/** A credential a rule reported: where it is, and the text the rule says it found (its message's data). */
export interface SecretHit {
  start: number;
  end: number;
  found: string[];
}

// The preset's scanners, run here rather than through secretlint's lintSource, which compares each report with every
// later one (2.1 s for 64 KiB of short Slack tokens, 7,281 reports), keeps every performance mark of every call for the
// life of the process (about 11 KB a call), and obeys `secretlint-disable` comments (the filter-comments rule): in
// program output those are the program's to write.
const SCANNERS = recommended.rules.filter(
  (rule) => rule.meta.id !== "@secretlint/secretlint-rule-filter-comments" && rule.meta.supportedContentTypes.some((type) => type === "text" || type === "all"),
);

/**
 * The credentials secretlint's recommended rules (AWS key pairs, private keys, Slack, npm, GitHub, GCP, Azure, OpenAI,
 * database URLs among them) find in `text`, read as a plain text file; in no particular order.
 */
export async function findSecrets(text: string): Promise<SecretHit[]> {
  const hits: SecretHit[] = [];
  const context: Context = {
    sharedOptions: {},
    // The messages' wording is secretlint's to localize; only what a report found is kept.
    createTranslator: () => (messageId, data) => ({ message: String(messageId), messageId: String(messageId), data }),
    report: ({ range, message }) => {
      const found = Object.values(message.data ?? {}).filter((value): value is string => typeof value === "string");
      hits.push({ start: range[0], end: range[1], found });
    },
    // Only the comment filter left out above ignores anything.
    ignore: () => {},
  };
  // The scanners read the content, extension and path only; the position helpers of a full SecretLintSourceCode serve
  // the comment filter.
  const source = { content: text, filePath: "/output.txt", physicalFilePath: undefined, ext: ".txt", contentType: "text", hasBOM: false };
  for (const rule of SCANNERS) await rule.create(context, {}).file?.(source as unknown as Source);
  return hits;
}
