import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  ConfigurationRequest,
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node.js";
import { checkoutPrefix, THIS_PROCESS } from "../git/checkout-name.js";
import { maskInherited } from "../sandbox/index.js";
import { withinTime } from "../lib/within-time.js";
import { confinedArgv, findConfinement } from "./confine-server.js";
import { LanguageServerError } from "./errors.js";
import type { ServerLaunch } from "./server-specs.js";
import type { ServerContainment, ServerLanguage, ServerLimits, ServerProcess } from "./types.js";

// How long `shutdown` may take before the group is killed anyway.
const SHUTDOWN_MS = 1_000;

/**
 * Spawns the server `launch` describes on the checkout `root`, in a process group of its own with an empty environment
 * (no PATH, no credentials; TMPDIR and HOME a folder of its own), under `limits`, in a bubblewrap jail that shows it the
 * checkout and our own packages alone (see confinedArgv; uncontained only as `containment` allows where bubblewrap does
 * not work), and holds the `initialize` handshake with it within `limits.startMs`.
 * Rejects with a LanguageServerError when it cannot be started or does not start in time (the group is killed then).
 */
export async function spawnServer(
  root: string,
  language: ServerLanguage,
  launch: ServerLaunch,
  { limits, containment }: { limits: ServerLimits; containment: ServerContainment },
): Promise<ServerProcess> {
  const confinement = await findConfinement();
  if ("why" in confinement && !containment.allowUncontained)
    throw new LanguageServerError(
      `the ${language} language server runs only in bubblewrap, and ${confinement.why}; allow it there, or run the repositories' commands uncontained (MAGIS_SANDBOX=none, for repositories you trust) to run the servers uncontained too`,
    );
  // A temp folder of its own, named for this process (the leftover sweep removes it once the process is gone), and removed
  // with the server: tsserver leaves its cancellation pipes' folders in the temp folder.
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), checkoutPrefix(THIS_PROCESS, "language-server")));
  const env = { PATH: "", TMPDIR: temp, HOME: temp };
  const command = [process.execPath, `--max-old-space-size=${limits.memoryMb}`, launch.script, ...launch.args];
  const jailed = "program" in confinement;
  let argv: string[];
  try {
    argv = jailed
      ? confinedArgv(
          confinement.program,
          command,
          { reads: [...launch.packages, ...launch.environment.reads], checkout: { root, placed: launch.environment.placed }, temp },
          env,
        )
      : command;
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw new LanguageServerError(`the ${language} language server could not be started: ${error instanceof Error ? error.message : String(error)}`);
  }
  // No descriptor the bot holds without close-on-exec reaches the server (bwrap would pass it into the jail).
  const child = maskInherited(["pipe", "pipe", "ignore"], (stdio) =>
    spawn(argv[0]!, argv.slice(1), { cwd: temp, env: jailed ? {} : env, detached: true, stdio }),
  );
  const pid = child.pid;
  /** Kills the process group and removes its temp folder. */
  const killGroup = () => {
    try {
      if (pid !== undefined) process.kill(-pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
    fs.rmSync(temp, { recursive: true, force: true });
  };
  let exited: string | null = null;
  const failures = new Set<(why: string) => void>();
  const fail = (why: string) => {
    exited ??= why;
    for (const reject of failures) reject(exited);
  };
  child.on("error", (error) => fail(`could not start: ${error.message}`));
  child.on("exit", (code, signal) => fail(`exited (${signal ?? `status ${code}`})`));
  if (pid === undefined) {
    killGroup();
    throw new LanguageServerError(`the ${language} language server could not be started`);
  }

  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  // A write after the server died must not take this process down.
  child.stdin!.on("error", () => {});
  connection.onError(() => {});
  connection.onRequest(ConfigurationRequest.type, (params) =>
    params.items.map((item) => (item.section ? lookUp(launch.settings, item.section) : launch.settings)),
  );
  connection.listen();

  /** Runs `work`, failing early when the server exits, and after `ms`. */
  const bounded = async <T>(work: Promise<T>, what: string, ms = limits.requestMs): Promise<T> => {
    let onExit!: (why: string) => void;
    const died = new Promise<never>((_, reject) => (onExit = (why) => reject(new LanguageServerError(`the ${language} language server ${why} while ${what}`))));
    failures.add(onExit);
    try {
      if (exited) onExit(exited);
      return await withinTime(
        Promise.race([work, died]),
        ms,
        () => new LanguageServerError(`the ${language} language server did not finish ${what} within ${ms} ms`),
      );
    } finally {
      failures.delete(onExit);
    }
  };

  const rootUri = pathToFileURL(root).href;
  try {
    await bounded(
      connection.sendRequest(InitializeRequest.type, {
        // A server exits once the process named here is gone. In the jail our pid names no process (it has a PID
        // namespace of its own), and the jail dies with us anyway; outside it, this is what stops a killed bot's servers.
        processId: jailed ? null : process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: path.basename(root) }],
        capabilities: { workspace: { configuration: true }, textDocument: { publishDiagnostics: { versionSupport: true } } },
        initializationOptions: launch.initializationOptions,
      }),
      "starting",
      limits.startMs,
    );
    await connection.sendNotification(InitializedNotification.type, {});
  } catch (error) {
    connection.dispose();
    killGroup();
    throw error;
  }

  return {
    connection,
    pid,
    temp,
    ended: () => exited,
    bounded,
    stop: async () => {
      if (!exited) {
        try {
          await withinTime(connection.sendRequest(ShutdownRequest.type), SHUTDOWN_MS, () => new Error("late"));
          await connection.sendNotification(ExitNotification.type);
        } catch {
          // It is killed below either way.
        }
      }
      connection.dispose();
      killGroup();
    },
  };
}

/** The value at a dotted section (`python.analysis`) of the settings, or null. */
function lookUp(settings: Record<string, unknown>, section: string): unknown {
  let value: unknown = settings;
  for (const part of section.split(".")) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  return value ?? null;
}
