import fs from "node:fs";
import { parseEnv } from "node:util";
import { UsageError } from "./usage-error.js";

/**
 * The environment with the variables of a `.env` file added, as Probot's own `run` reads them: `KEY=value` lines,
 * quoted values (`\n` in double quotes is a newline, as the setup page writes the private key), `#` comments. What the
 * environment sets already is kept (a deployment's variables win over a file left in the folder). No file: `env` as it
 * is, unless the file was asked for by name; a file that cannot be read says so. `read` names the variables it added.
 */
export function withEnvFile(env: NodeJS.ProcessEnv, file: string, options: { required: boolean }): { env: NodeJS.ProcessEnv; read: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !options.required) return { env, read: [] };
    if (code === "ENOENT") throw new UsageError(`--env-file ${file}: no such file; name the .env file that holds the app's settings`);
    throw new UsageError(`could not read ${file} (${code ?? String(error)}): make it readable, or set the variables in the environment instead`);
  }
  const fromFile = parseEnv(text);
  const read = Object.keys(fromFile).filter((name) => env[name] === undefined);
  return { env: { ...fromFile, ...env }, read };
}
