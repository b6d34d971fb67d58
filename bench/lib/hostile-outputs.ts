// Program output that made the secret scrubber (cleanOutput) run in quadratic time: many secret-shaped tokens with no
// space between them, and runs a pattern rescans from each of its starts. Shared by bench/scrub-output.ts, which times
// them, and the unit tests, which check that every planted secret is still redacted.
import { base64Attachment } from "./adversarial-issues.js";

/** One hostile output: its text, and the secrets planted in it (none for noise). */
export interface HostileOutput {
  text: string;
  planted: string[];
}

const SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
const GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
// The shortest token secretlint's Slack rule takes: the most hits a length of text can hold.
const SHORT_SLACK = "xoxb-a-b";

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Each hostile output by name, about `length` characters long (whole units, so no planted secret is cut). */
export function hostileOutputs(length: number): Record<string, HostileOutput> {
  const whole = (unit: string) => unit.repeat(Math.max(1, Math.floor(length / unit.length)));
  const logLine = "GET /api/v1/items?id=42 200 12ms ";
  const shortLines = `${"ok 12 - parses the date\n".repeat(199)}export GITHUB_TOKEN=${GITHUB}\n`;
  return {
    "xoxb-… tokens, no spaces": { text: whole(`${SLACK},`), planted: [SLACK] },
    "ghp_… tokens, no spaces": { text: whole(`${GITHUB},`), planted: [GITHUB] },
    "xoxb-a-b, (densest hits)": { text: whole(`${SHORT_SLACK},`), planted: [SHORT_SLACK] },
    "one huge line": { text: whole(`${logLine.repeat(60)}Authorization: token ${GITHUB} `), planted: [GITHUB] },
    "many short lines": { text: whole(shortLines), planted: [GITHUB] },
    "base64-like noise": { text: base64Attachment(length), planted: [] },
    "eyJ-eyJ-… (JWT starts)": { text: repeatTo("eyJ-", length), planted: [] },
  };
}
