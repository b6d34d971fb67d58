import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxFor } from "../../../src/app/create-services.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const CLIENT_SECRET = "client-secret-of-the-sign-in-0123456789";
const SESSION_SECRET = "cookie-signing-key-of-the-sign-in-0123456789abcdef";
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let dir = "";

afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("the app's secrets and the repository's commands", () => {
  it("keeps the sign-in's client secret and cookie key out of an uncontained command's environment, whatever they are named", async () => {
    // An operator's shell that holds them again under names no rule of names would catch.
    const env = {
      PATH: process.env.PATH,
      MAGIS_SANDBOX: "none",
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      MAGIS_SESSION_SECRET: SESSION_SECRET,
      OAUTH_COPY: CLIENT_SECRET,
      COOKIE_COPY: SESSION_SECRET,
      HARMLESS: "stays-in-the-environment",
    };
    const choice = sandboxFor(readSettings(env, { door: "serve" }), { env, log: quiet });
    if (!choice.sandbox) throw new Error(`no sandbox: ${choice.why}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-app-secrets-"));
    const run = await choice.sandbox.run("env", { dir, env: {}, timeoutMs: 10_000 });
    expect(run.output).toContain("HARMLESS=stays-in-the-environment");
    for (const name of ["GITHUB_CLIENT_SECRET", "MAGIS_SESSION_SECRET", "OAUTH_COPY", "COOKIE_COPY"]) expect(run.output).not.toContain(`${name}=`);
  });
});
