import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { DeclarationError } from "../../../src/environment/declare/declaration-error.js";
import { readEnvironmentDeclaration } from "../../../src/environment/read-declaration.js";
import { checkoutWith, removeCheckouts, runStep } from "./declaration-files.js";

const FILE = ".github/workflows/copilot-setup-steps.yml";
const read = (workflow: string, more: Record<string, string> = {}) => {
  const root = checkoutWith({ [FILE]: workflow, ...more });
  return { root, declaration: readEnvironmentDeclaration(root, parseConfig({}))! };
};

afterEach(removeCheckouts);

describe("copilot-setup-steps.yml as the environment", () => {
  const workflow = `name: "Copilot Setup Steps"
on: workflow_dispatch
env:
  FROM_WORKFLOW: w
  SHARED: workflow
jobs:
  copilot-setup-steps:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    env:
      SHARED: job
      TOKEN: \${{ secrets.TOKEN }}
    steps:
      - name: Checkout code
        uses: actions/checkout@v5
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install
        working-directory: sub
        env:
          GREETING: "it's \\"here\\""
          COUNT: 3
          SECRET: \${{ secrets.X }}
        run: |
          printf '%s %s %s\\n' "$GREETING" "$COUNT" "$(basename "$PWD")" > ../install.out
      - run: echo "$SHARED" > second.out
      - name: Windows only
        shell: pwsh
        run: Write-Host hi
      - name: Flaky
        continue-on-error: true
        run: exit 4
`;

  it("takes the run: steps in order, names each uses: step as not run, and applies env and working-directory", async () => {
    const { root, declaration } = read(workflow);
    fs.mkdirSync(path.join(root, "sub"));
    expect(declaration.source).toBe(FILE);
    expect(declaration.setup.map((step) => step.name)).toEqual(["step “Install”", "steps[4]", "step “Flaky”"]);
    expect(declaration.env).toEqual({ FROM_WORKFLOW: "w", SHARED: "job" });
    expect(declaration.unsupported).toEqual([
      "`jobs.copilot-setup-steps.env.TOKEN` is not set: `${{ … }}` expressions are not evaluated",
      "`actions/checkout@v5` (step “Checkout code”) is not run: the checkout is already there",
      "`actions/setup-python@v5` (step “Set up Python”) is not run: MAGIS runs only `run:` steps; install what it sets up in a `run:` step",
      "step “Install”: `env.SECRET` is not set: `${{ … }}` expressions are not evaluated",
      "step “Windows only” is not run: its `shell:` is not bash or sh",
    ]);
    expect(declaration.keyFiles).toEqual([FILE]);
    for (const step of declaration.setup) expect(await runStep(root, step.command, declaration.env)).toMatchObject({ code: 0 });
    expect(fs.readFileSync(path.join(root, "install.out"), "utf8")).toBe(`it's "here" 3 sub\n`);
    expect(fs.readFileSync(path.join(root, "second.out"), "utf8")).toBe("job\n");
  });

  it("runs a step with bash -e as GitHub does: a failing line stops it", async () => {
    const { root, declaration } = read(`jobs:
  copilot-setup-steps:
    steps:
      - run: |
          false
          touch reached
`);
    expect(await runStep(root, declaration.setup[0]!.command)).toMatchObject({ code: 1 });
    expect(fs.existsSync(path.join(root, "reached"))).toBe(false);
  });

  it("refuses a working-directory outside the checkout, a workflow without the job, and one that does not parse", () => {
    const refusal = (text: string) => {
      try {
        read(text);
      } catch (error) {
        expect(error).toBeInstanceOf(DeclarationError);
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    expect(refusal(`jobs:\n  copilot-setup-steps:\n    steps:\n      - name: Up\n        working-directory: ../..\n        run: ls\n`)).toBe(
      `${FILE}: step “Up” has a \`working-directory\` outside the repository. Setup runs inside the checkout: give a path relative to the repository's root`,
    );
    expect(refusal(`jobs:\n  build:\n    steps: []\n`)).toBe(
      `${FILE}: has no \`copilot-setup-steps\` job. Name the job that sets the environment up \`copilot-setup-steps\` (GitHub's Copilot reads only that one), or declare the environment under \`environment:\` in .github/magis.yml`,
    );
    expect(refusal(`jobs:\n  copilot-setup-steps:\n    steps: [\n  x: 1\n`)).toMatch(
      new RegExp(`^${FILE.replace(/\./g, "\\.")}: line \\d+, column \\d+: .+\\. Fix the workflow \\(GitHub would refuse it too\\)`),
    );
  });

  it("honours the job's defaults.run working-directory, and takes the job's container as the image", async () => {
    const { root, declaration } = read(`jobs:
  copilot-setup-steps:
    container: node:20
    defaults:
      run:
        working-directory: ./app
    steps:
      - run: pwd > ../where.out
`);
    fs.mkdirSync(path.join(root, "app"));
    expect(declaration.image).toEqual({ image: "node:20" });
    expect(await runStep(root, declaration.setup[0]!.command)).toMatchObject({ code: 0 });
    expect(fs.readFileSync(path.join(root, "where.out"), "utf8").trim()).toBe(fs.realpathSync(path.join(root, "app")));
  });
});
