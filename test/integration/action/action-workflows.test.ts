import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "../../..");

interface Step {
  id?: string;
  name?: string;
  env?: Record<string, string>;
  run?: string;
}
interface Job {
  needs?: string;
  if?: string;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  outputs?: Record<string, string>;
  steps: Step[];
}

function readWorkflow(file: string): { jobs: Record<string, Job> } {
  return parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as { jobs: Record<string, Job> };
}

/**
 * A `${{ … }}` of context paths (`github.event.issue.number`) joined by `||`, filled as the runner fills it from
 * `contexts`: the first that is set, else empty.
 */
function expand(text: string, contexts: Record<string, unknown>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    for (const term of expression.split("||").map((t) => t.trim())) {
      if (!/^[\w-]+(\.[\w-]+)+$/.test(term)) throw new Error(`the test does not know the expression ${term}`);
      const value = term.split(".").reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], contexts);
      if (value !== undefined && value !== null && value !== "") return String(value);
    }
    return "";
  });
}

/** Runs a step's script as the runner runs `run:` (bash -e -o pipefail), its env filled from `github`. */
function runStep(step: Step, github: Record<string, unknown>, dir: string, extraEnv: Record<string, string> = {}) {
  const output = path.join(dir, "github-output");
  fs.writeFileSync(output, "");
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value, { github })]));
  const script = path.join(dir, "step.sh");
  fs.writeFileSync(script, step.run!);
  const stdout = execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_REPOSITORY: "Codertocat/Hello-World", GITHUB_OUTPUT: output, ...env, ...extraEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const outputs = Object.fromEntries(
    fs
      .readFileSync(output, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  return { stdout, outputs };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-workflows-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the example workflow's concurrency group (examples/github-action/magis.yml)", () => {
  const workflow = readWorkflow("examples/github-action/magis.yml");
  const keyStep = workflow.jobs.issue!.steps.find((step) => step.id === "key")!;

  /** The group the `magis` job of one event joins, with `gh` answering the head branch of any pull request asked for. */
  function groupOf(github: Record<string, unknown>, pullBranch = "") {
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin, { recursive: true });
    // A stand-in for the runner's gh: records what it was asked, with which token, and answers the branch.
    fs.writeFileSync(path.join(bin, "gh"), `#!/bin/sh\necho "$GH_TOKEN $*" >> "${path.join(dir, "gh-calls")}"\necho "${pullBranch}"\n`, { mode: 0o755 });
    const { outputs } = runStep(keyStep, { token: "ghs_workflowToken", ...github }, dir, { PATH: `${bin}:${process.env.PATH}` });
    const calls = fs.existsSync(path.join(dir, "gh-calls")) ? fs.readFileSync(path.join(dir, "gh-calls"), "utf8").trim().split("\n") : [];
    fs.rmSync(path.join(dir, "gh-calls"), { force: true });
    const key = expand(workflow.jobs.issue!.outputs!.key!, { steps: { key: { outputs } } });
    return { group: expand(workflow.jobs.magis!.concurrency!.group, { needs: { issue: { outputs: { key } } } }), calls };
  }

  it("runs the action after the job that names its group, which alone decides which events start a runner, and never cancels a run", () => {
    expect(workflow.jobs.magis!.needs).toBe("issue");
    expect(workflow.jobs.magis!.if).toBeUndefined();
    expect(workflow.jobs.issue!.if).toContain("github.event.label.name == 'magis'");
    expect(workflow.jobs.magis!.concurrency).toEqual({ group: "magis-${{ needs.issue.outputs.key }}", "cancel-in-progress": false });
    expect(workflow.jobs.issue!.outputs).toEqual({ key: "${{ steps.key.outputs.key }}" });
  });

  it("puts an issue and every event of the bot's pull requests for it in one group", () => {
    const issue = { number: 1 };
    const pull = { number: 2, head: { ref: "magis/issue-1" }, user: { type: "Bot" } };
    const groups = [
      groupOf({ event_name: "issues", event: { issue, label: { name: "magis" } } }),
      groupOf({ event_name: "issue_comment", event: { issue, comment: { body: "/magis retry" } } }),
      groupOf({ event_name: "pull_request_review", event: { pull_request: pull } }),
      groupOf({ event_name: "workflow_run", event: { workflow_run: { head_branch: "magis/issue-1", conclusion: "failure" } } }),
      groupOf({ event_name: "pull_request_review", event: { pull_request: { ...pull, number: 3, head: { ref: "magis/issue-1-2" } } } }),
    ];
    expect(groups).toEqual(Array(5).fill({ group: "magis-issue-1", calls: [] }));
  });

  it("asks GitHub, with the workflow's token, for the branch of a pull request a /magis comment is on", () => {
    const comment = {
      issue: { number: 2, pull_request: { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/2" } },
      comment: { body: "/magis revise" },
    };
    expect(groupOf({ event_name: "issue_comment", event: comment }, "magis/issue-1")).toEqual({
      group: "magis-issue-1",
      calls: ["ghs_workflowToken api repos/Codertocat/Hello-World/pulls/2 --jq .head.ref"],
    });
  });

  it("gives a pull request on another branch a group of its own, never an issue's", () => {
    const review = { pull_request: { number: 7, head: { ref: "dependabot/npm/yaml-2.8.1" }, user: { type: "Bot" } } };
    expect(groupOf({ event_name: "pull_request_review", event: review }).group).toBe("magis-branch-dependabot/npm/yaml-2.8.1");
    expect(groupOf({ event_name: "workflow_run", event: { workflow_run: { head_branch: "magis/issue-12-old" } } }).group).toBe(
      "magis-branch-magis/issue-12-old",
    );
  });
});

describe("the release workflow's major tag (.github/workflows/release.yml)", () => {
  const workflow = readWorkflow(".github/workflows/release.yml");
  const moveStep = workflow.jobs["move-major-tag"]!.steps.find((step) => step.name === "Move the major tag")!;
  let origin: string;
  let clone: string;
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

  beforeEach(() => {
    origin = path.join(dir, "origin.git");
    clone = path.join(dir, "clone");
    git(dir, "init", "-q", "--bare", origin);
    git(dir, "clone", "-q", origin, clone);
    git(clone, "config", "user.name", "Release Test");
    git(clone, "config", "user.email", "release@example.com");
  });

  /** A commit whose package.json says `version`, tagged `tag` (annotated, as a GitHub release makes it) and pushed. */
  function release(version: string, tag: string): string {
    fs.writeFileSync(path.join(clone, "package.json"), JSON.stringify({ name: "magis-bot", version }));
    git(clone, "add", "package.json");
    git(clone, "commit", "-q", "--allow-empty", "-m", `Release ${version}`);
    git(clone, "tag", "-a", tag, "-m", tag);
    git(clone, "push", "-q", "origin", "HEAD:refs/heads/main", `refs/tags/${tag}`);
    return git(clone, "rev-parse", "HEAD");
  }

  const move = (tag: string) => runStep(moveStep, { event: { release: { tag_name: tag } } }, clone);
  const refused = (tag: string) => {
    try {
      move(tag);
    } catch (error) {
      return (error as { stdout: string }).stdout.trim();
    }
    throw new Error(`the step took ${tag}`);
  };

  it("publishes only releases, checking first that the tag's committed bundle is what its sources build", () => {
    const job = workflow.jobs["move-major-tag"]!;
    expect(job.if).toBe("${{ !github.event.release.prerelease }}");
    const steps = job.steps.map((step) => step.name ?? step.run ?? "");
    expect(steps.indexOf("Check the committed bundle")).toBeLessThan(steps.indexOf("Move the major tag"));
    expect(job.steps.find((step) => step.name === "Check the committed bundle")!.run).toContain("npm run build:action");
  });

  it("moves v1 to each v1.x.y release's commit, and leaves v2 to the v2 releases", () => {
    const first = release("1.2.0", "v1.2.0");
    expect(move("v1.2.0").stdout).toContain("moved v1 to v1.2.0");
    expect(git(origin, "rev-parse", "v1^{commit}")).toBe(first);

    const second = release("1.3.0", "v1.3.0");
    move("v1.3.0");
    expect(git(origin, "rev-parse", "v1^{commit}")).toBe(second);

    const third = release("2.0.0", "v2.0.0");
    move("v2.0.0");
    expect([git(origin, "rev-parse", "v1^{commit}"), git(origin, "rev-parse", "v2^{commit}")]).toEqual([second, third]);
  });

  it("refuses a tag that is no v<major>.<minor>.<patch>, or that is not package.json's version, and moves nothing", () => {
    release("1.4.0", "v1.4");
    expect(refused("v1.4")).toBe("::error::the release's tag is 'v1.4': name it v<major>.<minor>.<patch> (v1.2.3), as package.json's version with a v");
    release("1.4.0", "v1.5.0");
    expect(refused("v1.5.0")).toBe(
      "::error::the release's tag is v1.5.0 but package.json says 1.4.0: set the version, rebuild dist-action (npm run build:action), commit and tag that commit",
    );
    expect(git(origin, "tag", "--list", "v1")).toBe("");
  });
});
