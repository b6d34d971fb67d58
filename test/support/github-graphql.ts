import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { executeSync, parse, type ExecutionResult } from "graphql";
import { schema } from "./github-spec/graphql-spec.js";
import type { Reply } from "./github-spec/screen-exchange.js";

/** A mutation GitHub refused: its error `type` (STALE_DATA, NOT_FOUND, UNPROCESSABLE, …) beside the message. */
export class Refused extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the fake's mutations act on: the bare repository through the real git, and the fake's state. */
export interface GitMutationDeps {
  owner: string;
  repo: string;
  /** The repository's node id, by which updateRefs names it. */
  nodeId: string;
  /** The branch rules in force now (FakeGitHubOptions.rules). */
  rules: () => { branch: RegExp; type: string; message: string }[];
  git: (...args: string[]) => string;
  gitWith: (input: string | Buffer, env: NodeJS.ProcessEnv, ...args: string[]) => string;
  headOf: (branch: string) => string | undefined;
  /** Who GitHub records as the author of a createCommitOnBranch commit (the credential's owner) and its committer (web-flow). */
  author: { name: string; email: string };
  committer: { name: string; email: string };
  /** Marks a commit as signed by GitHub (verified). */
  sign: (sha: string) => void;
}

type RefUpdate = { name: string; beforeOid?: string | null; afterOid: string; force?: boolean };
type CommitInput = {
  branch: { repositoryNameWithOwner?: string | null; branchName?: string | null; id?: string | null };
  expectedHeadOid: string;
  fileChanges?: { additions?: { path: string; contents: string }[] | null; deletions?: { path: string }[] | null } | null;
  message: { headline: string; body?: string | null };
  clientMutationId?: string | null;
};

const ZEROS = "0".repeat(40);

/**
 * The mutations the fake answers, for real on the bare repository: updateRefs (GitHub's compare-and-swap of refs,
 * all or none) and createCommitOnBranch (one commit of whole files on a branch's head, which GitHub signs; the branch
 * must exist and be at `expectedHeadOid`). FileAddition has no mode: every added or replaced file is a 100644 blob.
 */
export function gitMutations(deps: GitMutationDeps): Record<string, (args: { input: any }) => unknown> {
  const { git, gitWith } = deps;
  const ruleFor = (branch: string) => deps.rules().find((r) => r.branch.test(branch));
  return {
    updateRefs: ({ input }: { input: { repositoryId: string; refUpdates: RefUpdate[]; clientMutationId?: string | null } }) => {
      const { repositoryId, refUpdates } = input;
      if (repositoryId !== deps.nodeId) throw new Refused("NOT_FOUND", `Could not resolve to a node with the global id of '${repositoryId}'`);
      for (const update of refUpdates) {
        const rule = ruleFor(update.name.replace(/^refs\/heads\//, ""));
        if (rule) throw new Refused(rule.type, rule.message);
        const before = update.beforeOid ?? ZEROS;
        if (!update.force && before !== ZEROS && update.afterOid !== ZEROS) {
          try {
            git("merge-base", "--is-ancestor", before, update.afterOid);
          } catch {
            throw new Refused("UNPROCESSABLE", `${update.name} cannot be updated: ${update.afterOid} is not a fast-forward of ${before}`);
          }
        }
      }
      // git's own compare-and-swap, all updates or none: each ref must be at beforeOid (zeros: must not exist).
      const commands = refUpdates.map((u) =>
        u.afterOid === ZEROS ? `delete ${u.name} ${u.beforeOid ?? ""}\n` : `update ${u.name} ${u.afterOid} ${u.beforeOid ?? ""}\n`,
      );
      try {
        gitWith(commands.join(""), {}, "update-ref", "--stdin");
      } catch (error) {
        throw new Refused("STALE_DATA", String((error as { stderr?: string }).stderr ?? error).trim());
      }
      return { clientMutationId: input.clientMutationId ?? null };
    },
    createCommitOnBranch: ({ input }: { input: CommitInput }) => {
      const branch = committableBranch(deps, input.branch);
      const rule = ruleFor(branch);
      if (rule) throw new Refused(rule.type, rule.message);
      const head = deps.headOf(branch);
      if (!head) throw new Refused("NOT_FOUND", `Could not resolve to a Ref named 'refs/heads/${branch}'.`);
      if (head !== input.expectedHeadOid)
        throw new Refused("STALE_DATA", `Expected branch to point to "${input.expectedHeadOid}" but it did not.  Pull and try again.`);
      const tree = treeWithChanges(deps, head, input.fileChanges ?? {});
      const { headline, body } = input.message;
      const message = body ? `${headline}\n\n${body}` : headline;
      const env = {
        GIT_AUTHOR_NAME: deps.author.name,
        GIT_AUTHOR_EMAIL: deps.author.email,
        GIT_COMMITTER_NAME: deps.committer.name,
        GIT_COMMITTER_EMAIL: deps.committer.email,
      };
      const sha = gitWith(message, env, "commit-tree", tree, "-p", head);
      try {
        git("update-ref", `refs/heads/${branch}`, sha, head);
      } catch {
        throw new Refused("STALE_DATA", `Expected branch to point to "${input.expectedHeadOid}" but it did not.  Pull and try again.`);
      }
      deps.sign(sha);
      return { clientMutationId: input.clientMutationId ?? null, commit: { oid: sha } };
    },
  };
}

/** The branch name a CommittableBranch names: by repository and branch name (a ref's node id is not handed out by the fake). */
function committableBranch(deps: GitMutationDeps, branch: CommitInput["branch"]): string {
  const { repositoryNameWithOwner: repository, branchName } = branch;
  if (!repository || !branchName) throw new Refused("UNPROCESSABLE", "the fake GitHub names a branch by repositoryNameWithOwner and branchName only");
  if (repository.toLowerCase() !== `${deps.owner}/${deps.repo}`.toLowerCase()) {
    throw new Refused("NOT_FOUND", `Could not resolve to a Repository with the name '${repository}'.`);
  }
  return branchName.replace(/^refs\/heads\//, "");
}

/** The tree of `head` with the deletions and additions made, each path at most once; a deletion of a missing path fails. */
function treeWithChanges(deps: GitMutationDeps, head: string, changes: NonNullable<CommitInput["fileChanges"]>): string {
  const additions = changes.additions ?? [];
  const deletions = changes.deletions ?? [];
  const paths = [...additions, ...deletions].map((c) => c.path);
  if (new Set(paths).size !== paths.length) throw new Refused("UNPROCESSABLE", "`path` values must be unique across all additions and deletions");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-fake-commit-"));
  try {
    const index = { GIT_INDEX_FILE: path.join(scratch, "index") };
    deps.gitWith("", index, "read-tree", `${head}^{tree}`);
    for (const { path: file } of deletions) {
      if (deps.gitWith("", index, "ls-files", "--", file) !== file) {
        throw new Refused("UNPROCESSABLE", `A path was requested for deletion which does not exist as of commit oid \`${head}\`.`);
      }
      // A zero mode removes the entry (update-index --force-remove wants a work tree, which a bare repository has not).
      deps.gitWith(`0 ${ZEROS}\t${file}\n`, index, "update-index", "--index-info");
    }
    for (const { path: file, contents } of additions) {
      const blob = deps.gitWith(Buffer.from(contents, "base64"), {}, "hash-object", "-w", "--stdin");
      try {
        deps.gitWith("", index, "update-index", "--add", "--replace", "--cacheinfo", `100644,${blob},${file}`);
      } catch (error) {
        throw new Refused("UNPROCESSABLE", `cannot add '${file}': ${(error as { stderr?: string }).stderr ?? String(error)}`);
      }
    }
    return deps.gitWith("", index, "write-tree");
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Runs a screened GraphQL document on the served schema with `resolvers` as its root, answered as GitHub answers: HTTP
 * 200, `data` (null for each refused mutation), and `errors`, each with its `type`, `path` and `locations`.
 */
export function answerGraphql(body: { query: string; variables?: Record<string, unknown>; operationName?: string }, resolvers: object): Reply {
  const result: ExecutionResult = executeSync({
    schema: schema(),
    document: parse(body.query),
    rootValue: resolvers,
    variableValues: body.variables,
    operationName: body.operationName,
  });
  if (!result.errors) return [200, { data: result.data }];
  const errors = result.errors.map((e) => {
    if (!(e.originalError instanceof Refused)) throw e.originalError ?? e;
    return { type: e.originalError.type, path: e.path, locations: e.locations, message: e.message };
  });
  return [200, { data: result.data ?? null, errors }];
}
