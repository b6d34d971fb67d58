import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAppCredentials } from "../../../src/app/check-app-credentials.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

let dir: string;
let pem: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-credentials-"));
  pem = appPrivateKey();
  fs.writeFileSync(path.join(dir, "app.pem"), pem);
  fs.writeFileSync(path.join(dir, "notes.txt"), "not a key at all\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("checkAppCredentials", () => {
  it("takes a key as Probot reads it: the .pem text, its newlines written \\n, base64 of it, or a file at PRIVATE_KEY_PATH", () => {
    for (const env of [
      { APP_ID: "12345", PRIVATE_KEY: pem },
      { APP_ID: "12345", PRIVATE_KEY: pem.replace(/\n/g, "\\n") },
      { APP_ID: "12345", PRIVATE_KEY: Buffer.from(pem).toString("base64") },
      { APP_ID: "12345", PRIVATE_KEY_PATH: path.join(dir, "app.pem") },
    ]) {
      expect(() => checkAppCredentials(readSettings(env, { door: "serve" }).app)).not.toThrow();
    }
  });

  it("says which setting is wrong and what to set, never quoting the key", () => {
    const cut = pem.slice(0, pem.length / 2);
    const cases: Array<[NodeJS.ProcessEnv, string]> = [
      [{ APP_ID: "my-app", PRIVATE_KEY: pem }, "APP_ID is 'my-app': set it to the App ID shown on the GitHub App's settings page"],
      [{ APP_ID: "1", PRIVATE_KEY: cut }, "PRIVATE_KEY does not hold a private key: set it to the whole text of the .pem file GitHub gave"],
      [{ APP_ID: "1", PRIVATE_KEY: `${pem.slice(0, 40)}AAAA${pem.slice(44)}` }, "PRIVATE_KEY is not a private key that can sign"],
      [{ APP_ID: "1", PRIVATE_KEY_PATH: path.join(dir, "missing.pem") }, `PRIVATE_KEY_PATH is '${path.join(dir, "missing.pem")}', and no file is there`],
      [{ APP_ID: "1", PRIVATE_KEY_PATH: dir }, `PRIVATE_KEY_PATH is '${dir}', and no file is there`],
      [{ APP_ID: "1", PRIVATE_KEY_PATH: path.join(dir, "notes.txt") }, `PRIVATE_KEY_PATH (${path.join(dir, "notes.txt")}) is not a private key that can sign`],
    ];
    for (const [env, message] of cases) {
      let said = "";
      try {
        checkAppCredentials(readSettings(env, { door: "serve" }).app);
      } catch (error) {
        said = (error as Error).message;
      }
      expect(said).toContain(message);
      expect(said).not.toContain(pem.split("\n")[1]!.slice(0, 16));
    }
  });
});
