import path from "node:path";
import { parseArgs } from "node:util";

export const DEFAULT_PORT = 5433;

/** Who runs the command: root gets a folder the user postgres can enter. */
export interface Runner {
  uid: number;
  home: string;
}

/** Where the cluster is kept when --dir is not given. */
export function defaultClusterFolder(env: NodeJS.ProcessEnv, runner: Runner): string {
  if (runner.uid === 0) return "/var/lib/magis/postgres";
  const data = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(runner.home, ".local", "share");
  return path.join(data, "magis", "postgres");
}

/** `npm run postgres`'s folder and port from its arguments, or a message saying which one was wrong and what to give. */
export function readArguments(args: string[], env: NodeJS.ProcessEnv, runner: Runner): { folder: string; port: number } | { help: true } | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { dir: { type: "string" }, port: { type: "string" }, help: { type: "boolean", short: "h" } } }));
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  if (values.help) return { help: true };
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? "0") || port < 1 || port > 65_535) return { error: `--port is '${values.port}': give a TCP port from 1 to 65535` };
  if (values.dir === "") return { error: "--dir is empty: name the folder that keeps the cluster, or leave --dir out for the default" };
  return { folder: values.dir === undefined ? defaultClusterFolder(env, runner) : path.resolve(values.dir), port };
}
