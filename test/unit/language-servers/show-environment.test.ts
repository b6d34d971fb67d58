import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { placeInCheckout, showEnvironment } from "../../../src/language-servers/show-environment.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function folder(files: string[], links: Record<string, string> = {}): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "magis-show-env-")));
  dirs.push(dir);
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    if (file.endsWith("/")) fs.mkdirSync(path.join(dir, file), { recursive: true });
    else fs.writeFileSync(path.join(dir, file), "");
  }
  for (const [link, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, link));
  return dir;
}

describe("showEnvironment", () => {
  it("keeps the folders that lie inside the environment or the checkout once links are resolved", () => {
    const outside = folder(["pkg/"]);
    const env = folder(["site/", "node_modules/", "a/node_modules/"], { "out-site": path.join(outside, "pkg"), "b-modules": outside });
    const root = folder(["src/"]);
    const shown = showEnvironment(root, {
      roots: [env],
      python: [path.join(env, "site"), outside, path.join(env, "out-site"), path.join(root, "src"), "relative/site", path.join(env, "missing")],
      nodeModules: [
        { from: path.join(env, "node_modules"), at: "node_modules" },
        { from: path.join(env, "b-modules"), at: "b/node_modules" },
        { from: path.join(env, "a/node_modules"), at: "../a/node_modules" },
      ],
    });
    expect(shown).toEqual({
      python: [path.join(env, "site"), path.join(root, "src")],
      nodeModules: [{ from: path.join(env, "node_modules"), at: "node_modules" }],
    });
  });
});

describe("placeInCheckout", () => {
  it("mounts the checkout alone when nothing is placed", () => {
    expect(placeInCheckout("/job/root", "/host/root", [])).toEqual(["--ro-bind", "/host/root", "/job/root"]);
  });

  it("makes each folder on the way a tmpfs of the checkout's entries, links as links, then read-only", () => {
    const host = folder(["README.md", "packages/a/index.ts", "packages/b/", "src/x.ts"], { "etc-link": "/etc" });
    const env = folder(["node_modules/", "packages/a/node_modules/", "build/c/node_modules/"]);
    const args = placeInCheckout("/r", host, [
      { from: path.join(env, "node_modules"), at: "node_modules" },
      { from: path.join(env, "packages/a/node_modules"), at: "packages/a/node_modules" },
      { from: path.join(env, "build/c/node_modules"), at: "build/c/node_modules" },
      // A place reached through a link of the checkout is left out.
      { from: path.join(env, "node_modules"), at: "etc-link/node_modules" },
    ]);
    const pairs = (option: string) => args.flatMap((arg, i) => (arg === option ? [`${args[i + 1]} ${args[i + 2] ?? ""}`.trim()] : []));
    expect(args.filter((a) => a === "--tmpfs").length).toBe(3);
    expect(args.filter((_, i) => args[i - 1] === "--tmpfs")).toEqual(["/r", "/r/packages", "/r/packages/a"]);
    expect(args.filter((_, i) => args[i - 1] === "--dir")).toEqual(["/r/build", "/r/build/c"]);
    expect(pairs("--symlink")).toEqual(["/etc /r/etc-link"]);
    expect(pairs("--ro-bind").sort()).toEqual(
      [
        `${host}/README.md /r/README.md`,
        `${host}/src /r/src`,
        `${host}/packages/b /r/packages/b`,
        `${host}/packages/a/index.ts /r/packages/a/index.ts`,
        `${env}/node_modules /r/node_modules`,
        `${env}/packages/a/node_modules /r/packages/a/node_modules`,
        `${env}/build/c/node_modules /r/build/c/node_modules`,
      ].sort(),
    );
    expect(args.filter((_, i) => args[i - 1] === "--remount-ro")).toEqual(["/r/packages/a", "/r/packages", "/r"]);
    expect(args.indexOf("--remount-ro")).toBeGreaterThan(args.lastIndexOf("--ro-bind"));
  });
});
