import fs from "node:fs";

/**
 * Sets `values` in the .env file `file`: a line that sets one of them already (`KEY=…` or `export KEY=…`) is replaced
 * in place, the others are added at the end, every other line is kept as it was. A new file is made readable by its
 * owner only (it holds the app's secrets).
 */
export function writeEnvValues(file: string, values: Record<string, string>): void {
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const pending = new Map(Object.entries(values));
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  const kept = lines.map((line) => {
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (key === undefined || !pending.has(key)) return line;
    const value = pending.get(key)!;
    pending.delete(key);
    return envLine(key, value);
  });
  const added = [...pending].map(([key, value]) => envLine(key, value));
  fs.writeFileSync(file, `${[...kept, ...added].join("\n")}\n`, { mode: 0o600 });
}

/**
 * `KEY=value`, quoted unless the value is made of characters a .env reads plainly. A .env has no escapes but `\n` in
 * double quotes (Node's parseEnv, as `magis serve` reads it), so a value that no quotes can hold is refused.
 */
function envLine(key: string, value: string): string {
  if (/^[\w./:@+-]*$/.test(value)) return `${key}=${value}`;
  if (!/["\n\\]/.test(value)) return `${key}="${value}"`;
  if (!/['\n]/.test(value)) return `${key}='${value}'`;
  throw new Error(`${key} holds both kinds of quotes or a line break, which a .env cannot hold: set it in the environment instead`);
}
