import { createHash } from "node:crypto";
import type { Diagnostic, Location, Position } from "vscode-languageserver-protocol";
import { addedDiagnostics, type AddedProblem } from "./added-diagnostics.js";
import { describeInstalled } from "./describe-installed.js";
import { LanguageServerError, LateReferencesError } from "./errors.js";
import { configTexts, keepUntouched, recallUntouched, serverIdentity, untouchedKey, type UntouchedStore } from "./remember-untouched.js";
import { languageOf } from "./server-specs.js";
import { portableFolders } from "./portable-folders.js";
import { NO_ENVIRONMENT } from "./show-environment.js";
import { startLanguageServer } from "./start-language-server.js";
import type { FileText, LanguageServer, ServerContainment, ServerEnvironment, ServerLanguage, ServerLimits } from "./types.js";

/** What a language server said of a change to one file: the errors it adds, or why it was not checked. */
export type ChangeCheck =
  | {
      checked: true;
      language: ServerLanguage;
      /** The server's name in a sentence, from its spec: "Pyright". */
      server: string;
      added: AddedProblem[];
    }
  | { checked: false; why: string };

/** The rules whose errors count, by language (a config's `diagnostics.refuse_rules`). */
export type RulesByLanguage = Readonly<Record<ServerLanguage, readonly string[]>>;

/** A job's language servers: one per language, started on first use, on the job's checkout. */
export interface LanguageServers {
  /**
   * The error-level diagnostics `after` adds to `before` in `file` (relative to the checkout), both read with the files
   * of `alongside` as given there (the job's other changes): a use of what another change adds is not an error. With
   * `only`, the errors of those rules of the file's language alone: the new text is checked first, and the untouched
   * one only when the new text has one of them (an error of them the new text lacks, it cannot add).
   */
  check(file: string, before: string, after: string, options?: { alongside?: readonly FileText[]; only?: RulesByLanguage }): Promise<ChangeCheck>;
  /** Where the name at `position` of `file` (whose text is `text`) is used, or why that could not be found. */
  references(file: string, text: string, position: Position): Promise<Location[] | { why: string }>;
  /**
   * Shows the servers the job's environment (its installed packages) once `environment` resolves; null or a rejection
   * leaves them as they are. A server never waits for it: one started before is restarted at its next use that finds
   * it idle, and what it said of untouched texts is asked again.
   */
  useEnvironment(environment: Promise<ServerEnvironment | null>): void;
  /** Stops every server started (kills their process groups); never rejects. */
  stop(): Promise<void>;
}

/**
 * The language servers of a job on `root`, a checkout nothing writes to while they run: the texts they check are handed to
 * them. Each runs in a bubblewrap jail of its own (see startLanguageServer and `containment`). A server that fails to start, dies, or does not answer within the limits is stopped and not asked again in this
 * job: its checks come back unchecked, with why, and never fail the job. One server per language serves every attempt
 * and candidate of the job; what it said of an untouched text is had once per job, and with `across`, once for every
 * job on the same commit, server, settings and environment (see untouchedKey).
 */
export function openLanguageServers(root: string, limits: ServerLimits, containment?: ServerContainment, across?: UntouchedStore): LanguageServers {
  const started = new Map<ServerLanguage, { server: Promise<LanguageServer>; seen: number; busy: number; environment: ServerEnvironment }>();
  const down = new Map<ServerLanguage, string>();
  const untouched = new Map<string, Diagnostic[]>();
  // The environment the servers are shown, and how many times it was given: a server started on an earlier one is
  // restarted once idle.
  let environment = NO_ENVIRONMENT;
  let given = 0;

  /** Runs `work` on the server of `file`'s language, starting it if need be; a failure puts that server down for the job. */
  const withServer = async <T>(
    file: string,
    work: (server: LanguageServer, shown: { seen: number; environment: ServerEnvironment }) => Promise<T>,
  ): Promise<T | { why: string }> => {
    const language = languageOf(file)?.language;
    if (!language) return { why: `no language server checks files like ${file}` };
    const known = down.get(language);
    if (known) return { why: known };
    let entry = started.get(language);
    if (entry && entry.seen !== given && entry.busy === 0) {
      started.delete(language);
      await entry.server.then((s) => s.stop()).catch(() => {});
      entry = started.get(language);
    }
    if (!entry) {
      entry = {
        server: startLanguageServer(root, language, limits, { allowUncontained: containment?.allowUncontained ?? false, environment }),
        seen: given,
        busy: 0,
        environment,
      };
      started.set(language, entry);
    }
    const { server } = entry;
    entry.busy++;
    try {
      return await work(await server, entry);
    } catch (error) {
      if (error instanceof LateReferencesError) return { why: error.message };
      // Whatever went wrong (no answer in time, an exit, an error answer), the job goes on without this server.
      const why =
        error instanceof LanguageServerError
          ? error.message
          : `the ${language} language server failed: ${error instanceof Error ? error.message : String(error)}`;
      down.set(language, why);
      if (started.get(language)?.server === server) started.delete(language);
      await server.then((s) => s.stop()).catch(() => {});
      return { why };
    } finally {
      entry.busy--;
    }
  };

  /** Where the untouched text's diagnostics are kept across jobs, or null: no store, or a checkout whose state has no name. */
  const keptKey = async (language: ServerLanguage, environment: ServerEnvironment, text: { file: string; before: string; alongside: readonly FileText[] }) => {
    const workspace = across && (await across.workspace.catch(() => null));
    const server = workspace ? serverIdentity(language, root, limits.memoryMb, environment) : null;
    if (!across || !workspace || !server) return null;
    const config = configTexts(language, root, text.file);
    const shown = {
      environment: portableFolders(environment, root, environment),
      installed: portableFolders(describeInstalled(environment), root, environment),
    };
    return { cache: across.cache, key: untouchedKey({ server, config, ...shown, workspace, ...text }) };
  };

  return {
    check: async (file, before, after, { alongside = [], only } = {}) => {
      const result = await withServer(file, async (server, { seen, environment: shown }) => {
        // Only the files the server reads count; a file the other languages' servers check does not change its verdict.
        const others = alongside.filter((other) => other.path !== file && languageOf(other.path)?.language === server.language);
        // The untouched text is the same for every attempt at a file (with the same other changes and environment): its
        // diagnostics are had once.
        const hash = createHash("sha256").update(`${seen}\u0000${before}`);
        for (const other of others) hash.update(`\u0000${other.path}\u0000${other.text}`);
        const key = `${file}\u0000${hash.digest("hex")}`;
        // An earlier job on the same commit may have had them already (see keptKey).
        const kept = untouched.has(key) ? null : await keptKey(server.language, shown, { file, before, alongside: others });
        let was = untouched.get(key) ?? (kept ? await recallUntouched(kept.cache, kept.key) : undefined);
        const rules = only && new Set(only[server.language]);
        const done = (added: AddedProblem[]) => ({
          checked: true as const,
          language: server.language,
          server: server.name,
          added: rules ? added.filter((p) => rules.has(p.rule)) : added,
        });
        let is: Diagnostic[] | undefined;
        if (was) [is] = await server.diagnose(file, [after], others);
        else if (rules) {
          // The new text first: without an error of the rules, the untouched text need not be checked at all.
          [is] = await server.diagnose(file, [after], others);
          // What the new text could add at most: its every error (see addedDiagnostics), of which none of the rules'.
          if (!addedDiagnostics([], is ?? []).some((p) => rules.has(p.rule))) return done([]);
          [was = []] = await server.diagnose(file, [before], others);
          if (kept) await keepUntouched(kept.cache, kept.key, was);
        } else {
          [was = [], is] = await server.diagnose(file, [before, after], others);
          if (kept) await keepUntouched(kept.cache, kept.key, was);
        }
        untouched.set(key, was);
        return done(addedDiagnostics(was, is ?? []));
      });
      return "why" in result ? { checked: false, why: result.why } : result;
    },
    references: (file, text, position) => withServer(file, (server) => server.references(file, text, position)),
    useEnvironment: (shown) => {
      shown.then(
        (found) => {
          if (!found) return;
          environment = found;
          given++;
        },
        () => {},
      );
    },
    stop: async () => {
      const servers = [...started.values()];
      started.clear();
      await Promise.all(servers.map((s) => s.server.then((server) => server.stop()).catch(() => {})));
    },
  };
}
