import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { DeclarationError } from "../../../src/environment/declare/declaration-error.js";
import { readEnvironmentDeclaration } from "../../../src/environment/read-declaration.js";
import { checkoutWith, removeCheckouts, runStep } from "./declaration-files.js";

const FILE = ".devcontainer/devcontainer.json";
const read = (files: Record<string, string>) => {
  const root = checkoutWith(files);
  return { root, declaration: readEnvironmentDeclaration(root, parseConfig({}))! };
};

afterEach(removeCheckouts);

describe("a devcontainer.json as the environment", () => {
  it("takes onCreateCommand, updateContentCommand and postCreateCommand in the spec's order; updateContentCommand is also the maintenance", () => {
    const { declaration } = read({
      [FILE]: JSON.stringify({ postCreateCommand: "make dev", onCreateCommand: "pip install -e .", updateContentCommand: "npm ci" }),
    });
    expect(declaration.source).toBe(FILE);
    expect(declaration.setup).toEqual([
      { name: "onCreateCommand", command: "pip install -e ." },
      { name: "updateContentCommand", command: "npm ci" },
      { name: "postCreateCommand", command: "make dev" },
    ]);
    expect(declaration.maintenance).toEqual([{ name: "updateContentCommand", command: "npm ci" }]);
    expect(declaration.unsupported).toEqual([]);
    expect(declaration.network).toBeNull();
  });

  it("quotes the array form so that each argument reaches the program as it is, a space and a quote included", async () => {
    const argument = `it's a "b" $HOME \`x\``;
    const { root, declaration } = read({
      [FILE]: JSON.stringify({
        postCreateCommand: ["node", "-e", "require('fs').writeFileSync('args.json', JSON.stringify(process.argv.slice(1)))", argument, "*"],
      }),
    });
    const [step] = declaration.setup;
    expect(step!.name).toBe("postCreateCommand");
    expect(await runStep(root, step!.command)).toMatchObject({ code: 0 });
    const { readFileSync } = await import("node:fs");
    expect(JSON.parse(readFileSync(`${root}/args.json`, "utf8"))).toEqual([argument, "*"]);
  });

  it("runs the object form's commands at once (each waits for the other's marker), and fails naming the one that failed", async () => {
    const waitFor = (mine: string, theirs: string) =>
      `touch ${mine}; i=0; while [ ! -e ${theirs} ]; do i=$((i+1)); [ $i -gt 100 ] && exit 7; sleep 0.05; done; echo ${mine} done`;
    const { root, declaration } = read({
      [FILE]: JSON.stringify({ postCreateCommand: { left: waitFor("a", "b"), right: ["/bin/sh", "-c", waitFor("b", "a")] } }),
    });
    const [step] = declaration.setup;
    expect(step!.name).toBe("postCreateCommand.left & postCreateCommand.right");
    const together = await runStep(root, step!.command);
    expect(together).toMatchObject({ code: 0 });
    expect(together.out).toContain("a done");
    expect(together.out).toContain("b done");

    const failing = read({ [FILE]: JSON.stringify({ postCreateCommand: { fine: "true", "it's broken": "sleep 0.2; exit 3", also: ["false"] } }) });
    const result = await runStep(failing.root, failing.declaration.setup[0]!.command);
    expect(result.code).toBe(1);
    expect(result.out.trim()).toBe("failed: postCreateCommand.it's broken (exit 3) postCreateCommand.also (exit 1)");
  });

  it("names a lone entry of the object form by its name, and leaves empty commands out", () => {
    const { declaration } = read({
      [FILE]: JSON.stringify({ onCreateCommand: "", updateContentCommand: [], postCreateCommand: { deps: "npm ci", none: "" } }),
    });
    expect(declaration.setup).toEqual([{ name: "postCreateCommand.deps", command: "npm ci" }]);
    expect(declaration.maintenance).toEqual([]);
  });

  it("reads JSON with comments and trailing commas, as the spec does", () => {
    const { declaration } = read({
      ".devcontainer.json": `// the project's container
{
  /* set up */ "postCreateCommand": "pip install -e .", // after creation
  "containerEnv": { "A": "1", },
}
`,
    });
    expect(declaration.source).toBe(".devcontainer.json");
    expect(declaration.setup).toEqual([{ name: "postCreateCommand", command: "pip install -e ." }]);
    expect(declaration.env).toEqual({ A: "1" });
  });

  it("refuses a file that does not parse, naming it, the line and column, and what to do", () => {
    const root = checkoutWith({ [FILE]: `{\n  "postCreateCommand": "make"\n  "image": "x"\n}\n` });
    let error: unknown;
    try {
      readEnvironmentDeclaration(root, parseConfig({}));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DeclarationError);
    expect((error as DeclarationError).message).toBe(
      ".devcontainer/devcontainer.json: line 3, column 3: expected ',' between two entries. Fix the file (JSON with comments and trailing commas, as the Dev Containers spec reads it), or declare the environment under `environment:` in .github/magis.yml, which is read first",
    );
    expect(() => readEnvironmentDeclaration(checkoutWith({ [FILE]: "[1]" }), parseConfig({}))).toThrow(
      ".devcontainer/devcontainer.json: does not hold an object",
    );
    expect(() => readEnvironmentDeclaration(checkoutWith({ [FILE]: `{"postCreateCommand": 5}` }), parseConfig({}))).toThrow(
      ".devcontainer/devcontainer.json: `postCreateCommand` is a number. Make it a command (a string), a program and its arguments",
    );
  });

  it("takes containerEnv and remoteEnv (remoteEnv wins), and never passes on a value the spec would substitute", () => {
    const { declaration } = read({
      [FILE]: JSON.stringify({
        containerEnv: { A: "container", B: "kept", C: "literal" },
        remoteEnv: { A: "remote", C: "${containerEnv:PATH}:/opt/bin", D: "${localEnv:HOME}", "BAD-NAME": "x" },
      }),
    });
    expect(declaration.env).toEqual({ A: "remote", B: "kept" });
    expect(declaration.unsupported).toEqual([
      "`remoteEnv.C` is not set: its value uses `${containerEnv:PATH}`, which MAGIS does not substitute; set it in a setup command instead",
      "`remoteEnv.D` is not set: its value uses `${localEnv:HOME}`, which MAGIS does not substitute; set it in a setup command instead",
      "`remoteEnv` holds a variable MAGIS cannot set: names are letters, digits and _, not starting with a digit",
    ]);
  });

  it("leaves out a command that uses a substituted variable, naming it", () => {
    const { declaration } = read({ [FILE]: JSON.stringify({ onCreateCommand: "cd ${containerWorkspaceFolder} && make", postCreateCommand: "make test" }) });
    expect(declaration.setup).toEqual([{ name: "postCreateCommand", command: "make test" }]);
    expect(declaration.unsupported).toEqual([
      "`onCreateCommand` is not run: it uses `${containerWorkspaceFolder}`, which MAGIS does not substitute; commands run at the repository's root, so a relative path does instead",
    ]);
  });

  it("gives the image, or the Dockerfile and its context relative to the root, and the Dockerfile is a key file", () => {
    expect(read({ [FILE]: JSON.stringify({ image: "mcr.microsoft.com/devcontainers/python:3.12" }) }).declaration.image).toEqual({
      image: "mcr.microsoft.com/devcontainers/python:3.12",
    });
    const built = read({
      [FILE]: JSON.stringify({ build: { dockerfile: "Dockerfile", context: "..", args: { V: "1" } } }),
      ".devcontainer/Dockerfile": "FROM debian\n",
      "package.json": "{}",
    }).declaration;
    expect(built.image).toEqual({ dockerfile: ".devcontainer/Dockerfile", context: "." });
    expect(built.keyFiles).toEqual([".devcontainer/Dockerfile", ".devcontainer/devcontainer.json", "package.json"]);
    expect(built.unsupported).toEqual(["`build.args` is not used: the image is built from the Dockerfile and its context alone"]);
    const outside = read({ [FILE]: JSON.stringify({ build: { dockerfile: "../../Dockerfile" } }) }).declaration;
    expect(outside.image).toBeUndefined();
    expect(outside.unsupported).toEqual(["`build` is not used: its Dockerfile or context lies outside the repository"]);
  });

  it("names every key it does not use, with what to do instead, and passes over only an editor's container's lifetime", () => {
    const { declaration } = read({
      [FILE]: JSON.stringify({
        name: "dev",
        features: { "ghcr.io/devcontainers/features/python:1": {}, "ghcr.io/devcontainers/features/node:1": { version: "20" } },
        forwardPorts: [8000],
        mounts: ["source=x,target=/x,type=bind"],
        runArgs: ["--privileged"],
        customizations: { vscode: {} },
        dockerComposeFile: "compose.yml",
        initializeCommand: "./on-the-host.sh",
        postStartCommand: "npm run watch",
        postAttachCommand: "echo hi",
        shutdownAction: "none",
        somethingNew: true,
      }),
    });
    expect(declaration.setup).toEqual([]);
    expect(declaration.unsupported).toEqual([
      "`features` (ghcr.io/devcontainers/features/python:1, ghcr.io/devcontainers/features/node:1) are not installed: install what they give in `onCreateCommand`",
      "`forwardPorts` is not used: no port is forwarded, and tests run without a network",
      "`mounts` is not used: the sandbox sees the checkout and the system only",
      "`runArgs` is not used: the sandbox's limits are the operator's",
      "`customizations` is not used: it configures editors",
      "`dockerComposeFile` is not used: no service is started; start what the tests need in `postCreateCommand`",
      "`initializeCommand` is not run: it runs on the host, and MAGIS runs a repository's commands only in the sandbox",
      "`postStartCommand` is not run: it runs each time an editor's container starts; put what the setup needs in `postCreateCommand`",
      "`postAttachCommand` is not run: it runs when an editor attaches; put what the setup needs in `postCreateCommand`",
      "`somethingNew` is not known to MAGIS and not used",
    ]);
  });
});
