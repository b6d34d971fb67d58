import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hideBotPaths } from "../../../src/sandbox/hide-bot-paths.js";

// A tree of its own stands for the host: `root` for a mounted system folder such as /opt, `outside` for one no sandbox mounts.
let top: string;
let root: string;
let outside: string;
beforeEach(() => {
  top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "magis-hide-")));
  root = path.join(top, "opt");
  outside = path.join(top, "srv");
  for (const folder of ["opt/magis/state", "opt/magis/bin", "opt/keys", "srv/magis"]) fs.mkdirSync(path.join(top, folder), { recursive: true });
  for (const file of ["opt/magis/.env", "opt/magis/state/magis.db", "opt/key.pem", "srv/magis/.env"]) fs.writeFileSync(path.join(top, file), "x");
});
afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

const hide = (paths: string[], needed: string[] = []) => hideBotPaths(paths, { roots: [root], needed });

describe("hideBotPaths", () => {
  it("puts a read-only tmpfs over a folder and /dev/null over a file, once: what lies inside a hidden folder is hidden with it", () => {
    expect(hide([`${root}/magis/state`, `${root}/magis`, `${root}/magis/.env`, `${root}/key.pem`])).toEqual([
      "--tmpfs",
      `${root}/magis`,
      "--remount-ro",
      `${root}/magis`,
      "--ro-bind",
      "/dev/null",
      `${root}/key.pem`,
    ]);
  });

  it("leaves what no mount shows, what is not there, and the mounted folder itself: its files listed are hidden one by one", () => {
    expect(hide([`${outside}/magis`, `${outside}/magis/.env`, `${root}/magis/absent.pem`, "/nonexistent"])).toEqual([]);
    expect(hide([root, `${root}/key.pem`])).toEqual(["--ro-bind", "/dev/null", `${root}/key.pem`]);
  });

  it("does not hide whole a folder that holds one the commands need (a working directory of /usr/local holds its bin)", () => {
    expect(hide([`${root}/magis`, `${root}/magis/.env`], [`${root}/magis/bin`])).toEqual(["--ro-bind", "/dev/null", `${root}/magis/.env`]);
  });

  it("hides a link's target: the bot's path may name a folder through a link from outside", () => {
    fs.symlinkSync(`${root}/keys`, `${outside}/keys`);
    expect(hide([`${outside}/keys`])).toEqual(["--tmpfs", `${root}/keys`, "--remount-ro", `${root}/keys`]);
  });
});
