import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import config from "../../vitest.config.js";

/** Every file under `dir` (a path relative to the working folder), as a relative path with forward slashes. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((entry) => {
    if (!entry.isFile()) return [];
    return [path.relative(process.cwd(), path.join(entry.parentPath, entry.name)).split(path.sep).join("/")];
  });
}

describe("the docs beside the code", () => {
  // The suite's size the README states ("about N test files"), held within a tenth of what `npm test` runs: the files
  // vitest.config.ts includes, less those it sets apart (the container and image tests).
  it("states the number of test files npm test runs, within a tenth", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    const stated = /about ([\d,]+) test files/.exec(readme);
    expect(stated, 'README.md says how many test files the suite runs ("about N test files")').not.toBeNull();
    const figure = Number(stated![1]!.replace(/,/g, ""));
    const included = picomatch(config.test!.include!);
    const excluded = picomatch(config.test!.exclude!);
    const files = filesUnder("test").filter((file) => included(file) && !excluded(file));
    const within = Math.abs(files.length - figure) <= figure / 10;
    expect(within, `README.md says about ${figure} test files; npm test runs ${files.length}: update the figure in README.md`).toBe(true);
  });

  it("docs/architecture.md lists every command of the CLI", async () => {
    let help = "";
    await main(["--help"], { stdout: (text) => void (help += text), stderr: () => undefined, env: {}, cwd: process.cwd() });
    const commands = [
      ...help
        .split("Commands:\n")[1]!
        .split("\n\n")[0]!
        .matchAll(/^ {2}(\S+) {2}/gm),
    ].map((m) => m[1]);
    expect(commands.length).toBeGreaterThan(3);
    const listed = /cli\/ \(magis ([^)]*)\)/.exec(fs.readFileSync("docs/architecture.md", "utf8"))?.[1]?.split(" | ");
    expect(listed, "docs/architecture.md's layer diagram names the commands of cli/ as `cli/ (magis a | b | …)`").toEqual(commands);
  });
});
