// `npm run test:image`: the `universal` target (test/image/build-targets.ts builds it on the App image), in a container
// with the least privileges of docs/deploy.md: each of its toolchains builds and runs a program through MAGIS's own
// bubblewrap sandbox, as a repository's setup and test commands would, and the escape suite still holds.
import { afterAll, describe, expect, inject, it } from "vitest";
import { removeContainers, runContainer, sandboxCheck } from "./run-container.js";

const IMAGE = inject("universalImage");

afterAll(() => removeContainers());

/** Each toolchain's command: it builds something and runs it, printing the word the test looks for. */
const TOOLCHAINS: Record<string, { command: string; prints: string }> = {
  python: {
    command: [
      "python3 -m venv /tmp/venv",
      "/tmp/venv/bin/pip --version",
      // The headers a C extension builds against (python3-dev).
      `test -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h"`,
      '/tmp/venv/bin/python -c \'import sys; print("python", sys.version_info[0], "works")\'',
    ].join(" && "),
    prints: "python 3 works",
  },
  c: {
    command: `printf '#include <stdio.h>\\nint main(void) { puts("c works"); return 0; }\\n' > hello.c && make hello && ./hello && c++ --version`,
    prints: "c works",
  },
  go: {
    command: `printf 'package main\\n\\nimport "fmt"\\n\\nfunc main() { fmt.Println("go works") }\\n' > hello.go && go run hello.go`,
    prints: "go works",
  },
  java: {
    command: `printf 'public class Hello { public static void main(String[] a) { System.out.println("java works"); } }\\n' > Hello.java && javac Hello.java && java -cp . Hello && mvn --version`,
    prints: "java works",
  },
  node: { command: "node -e 'console.log(\"node works\")' && npm --version", prints: "node works" },
  git: { command: "git init -q && git --version && echo git works", prints: "git works" },
};

/** Runs each command through the image's own sandbox code (MAGIS_SANDBOX=bwrap), printing what each did as JSON. */
const RUN_IN_SANDBOX = `
import fs from "node:fs";
import { chooseSandbox } from "/app/dist/sandbox/index.js";
const { sandbox } = chooseSandbox({ mode: "bwrap", setupNetwork: false, env: process.env, secrets: [], botPaths: [] });
const done = {};
for (const [name, { command }] of Object.entries(JSON.parse(process.argv[1]))) {
  const dir = fs.mkdtempSync("/tmp/toolchain-");
  sandbox.prepare(dir);
  const run = await sandbox.run(command, { dir, env: {}, timeoutMs: 300000 });
  done[name] = { outcome: run.outcome, output: run.output.slice(-3000) };
}
console.log(JSON.stringify(done));
`;

describe(`${IMAGE}: the App with Debian's common toolchains`, () => {
  it("builds and runs a program with each toolchain inside the bubblewrap sandbox, as uid 10001", async () => {
    const { code, output } = await runContainer(IMAGE, ["node", "--input-type=module", "-e", RUN_IN_SANDBOX, JSON.stringify(TOOLCHAINS)]);
    expect(code, output).toBe(0);
    const done = JSON.parse(output.trim().split("\n").at(-1)!) as Record<string, { outcome: string; output: string }>;
    for (const [name, { prints }] of Object.entries(TOOLCHAINS)) {
      expect(done[name]?.outcome, `${name}: ${done[name]?.output}`).toBe("passed");
      expect(done[name]!.output, name).toContain(prints);
    }
    expect(done.java!.output).toMatch(/Apache Maven \d/);
  });

  it("`magis sandbox check` is all contained there too", async () => {
    const { code, output } = await runContainer(IMAGE, sandboxCheck);
    expect(output).toContain("All contained.");
    expect(code, output).toBe(0);
  });
});
