import { describe, expect, it } from "vitest";
import { defaultClusterFolder, readArguments } from "../../../scripts/postgres/read-arguments.js";

const user = { uid: 1000, home: "/home/ada" };

describe("npm run postgres's arguments", () => {
  it("keeps the cluster in the user's data folder, XDG_DATA_HOME first, and root's where the user postgres can enter", () => {
    expect(defaultClusterFolder({}, user)).toBe("/home/ada/.local/share/magis/postgres");
    expect(defaultClusterFolder({ XDG_DATA_HOME: "/data/ada" }, user)).toBe("/data/ada/magis/postgres");
    // The XDG spec ignores a relative path.
    expect(defaultClusterFolder({ XDG_DATA_HOME: "relative" }, user)).toBe("/home/ada/.local/share/magis/postgres");
    expect(defaultClusterFolder({}, { uid: 0, home: "/root" })).toBe("/var/lib/magis/postgres");
  });

  it.each([
    [[], { folder: "/home/ada/.local/share/magis/postgres", port: 5433 }],
    [["--dir", "/srv/pg", "--port", "6000"], { folder: "/srv/pg", port: 6000 }],
    [["--help"], { help: true }],
    [["--port", "0"], { error: "--port is '0': give a TCP port from 1 to 65535" }],
    [["--port", "5e3"], { error: "--port is '5e3': give a TCP port from 1 to 65535" }],
    [["--port", "70000"], { error: "--port is '70000': give a TCP port from 1 to 65535" }],
    [["--dir", ""], { error: "--dir is empty: name the folder that keeps the cluster, or leave --dir out for the default" }],
    [["--data", "x"], { error: "Unknown option '--data'" }],
  ])("%j", (args, expected) => {
    expect(readArguments(args, {}, user)).toEqual(expected);
  });
});
