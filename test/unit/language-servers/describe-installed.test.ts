import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeInstalled } from "../../../src/language-servers/describe-installed.js";

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

describe("describeInstalled", () => {
  it("lists Python's search paths and names each node_modules package with its version, scoped ones too", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-installed-"));
    write("site/requests-2.31.0.dist-info/METADATA", "Name: requests\n");
    write("site/requests/__init__.py", "");
    write("node_modules/left-pad/package.json", JSON.stringify({ name: "left-pad", version: "1.3.0" }));
    write("node_modules/@scope/tool/package.json", JSON.stringify({ name: "@scope/tool", version: "2.0.1" }));
    write("node_modules/broken/package.json", "{ not json");
    write("node_modules/.package-lock.json", "{}");
    const site = path.join(dir, "site");
    const modules = path.join(dir, "node_modules");
    expect(describeInstalled({ roots: [dir], python: [site, path.join(dir, "gone")], nodeModules: [{ from: modules, at: "node_modules" }] })).toEqual([
      { kind: "python", folder: site, entries: ["requests", "requests-2.31.0.dist-info"] },
      { kind: "python", folder: path.join(dir, "gone"), entries: ["(unreadable: ENOENT)"] },
      { kind: "node", folder: modules, entries: ["@scope/tool@2.0.1", "broken@?", "left-pad@1.3.0"] },
    ]);
  });

  it("reads an environment's folders once: the set-up state a job's servers see does not change within the job", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-installed-"));
    write("site/calc-1.0.dist-info/METADATA", "");
    const environment = { roots: [dir], python: [path.join(dir, "site")], nodeModules: [] };
    const first = describeInstalled(environment);
    fs.renameSync(path.join(dir, "site/calc-1.0.dist-info"), path.join(dir, "site/calc-2.0.dist-info"));
    expect(describeInstalled(environment)).toBe(first);
    expect(describeInstalled({ ...environment })[0]!.entries).toEqual(["calc-2.0.dist-info"]);
  });
});
