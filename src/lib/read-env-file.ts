import fs from "node:fs";
import { parseEnv } from "node:util";
import { fileKind } from "./file-kind.js";
import { UsageError } from "./usage-error.js";

/**
 * The environment with the variables of a `.env` file added, as Probot's own `run` reads them: `KEY=value` lines,
 * quoted values (`\n` in double quotes is a newline, as the setup page writes the private key), `#` comments; a
 * leading byte-order mark (some editors write one) is not part of the first key. What the environment sets already is
 * kept (a deployment's variables win over a file left in the folder). No file: `env` as it is, unless the file was
 * asked for by name; a file that cannot be read, or is not a regular file (a FIFO would hold the start until something
 * writes to it), says so. `read` names the variables it added.
 */
export function withEnvFile(env: NodeJS.ProcessEnv, file: string, options: { required: boolean }): { env: NodeJS.ProcessEnv; read: string[] } {
  const text = readRegularFile(file, options);
  if (text === undefined) return { env, read: [] };
  const fromFile = parseEnv(text.replace(/^\uFEFF/, ""));
  const read = Object.keys(fromFile).filter((name) => env[name] === undefined);
  return { env: { ...fromFile, ...env }, read };
}

/** The text of `file` (a link to one is followed), or undefined when it is missing and not required. */
function readRegularFile(file: string, options: { required: boolean }): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; fstat then refuses it.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !options.required) return undefined;
    if (code === "ENOENT") throw new UsageError(`--env-file ${file}: no such file; name the .env file that holds the app's settings`);
    throw new UsageError(`could not read ${file} (${code ?? String(error)}): make it readable, or set the variables in the environment instead`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      throw new UsageError(`${file} is ${fileKind(stat)}, not a regular file: name the .env file itself, or set the variables in the environment instead`);
    }
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}
