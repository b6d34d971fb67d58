import crypto from "node:crypto";
import { getPrivateKey } from "@probot/get-private-key";

/**
 * Checks the GitHub App's private key as Probot will read it (PRIVATE_KEY, as the .pem file's text, with its newlines
 * or `\n`, or in base64; else the file at PRIVATE_KEY_PATH), and that it is one Node can sign with; readSettings has
 * checked APP_ID. Probot drops its key reader's reason and says only "privateKey option is required", or takes a
 * damaged key and fails at the first webhook; this says which setting is wrong and what to set, never quoting the key.
 */
export function checkAppCredentials(app: { privateKey?: string; privateKeyPath?: string }): void {
  const { privateKey, privateKeyPath } = app;
  const source = privateKey ? "PRIVATE_KEY" : `PRIVATE_KEY_PATH (${privateKeyPath})`;
  const getNew = "generate a private key on the GitHub App's settings page and set it again";
  let pem: string | null;
  try {
    pem = getPrivateKey({ env: { PRIVATE_KEY: privateKey, PRIVATE_KEY_PATH: privateKeyPath } });
  } catch {
    throw new Error(
      privateKey
        ? "PRIVATE_KEY does not hold a private key: set it to the whole text of the .pem file GitHub gave (from -----BEGIN to -----END, newlines kept or written \\n, or all of it in base64), or set PRIVATE_KEY_PATH to that file instead"
        : `PRIVATE_KEY_PATH is '${privateKeyPath}', and no file is there: set it to the .pem file GitHub gave, or set PRIVATE_KEY to its text`,
    );
  }
  try {
    crypto.createPrivateKey(pem ?? "");
  } catch {
    throw new Error(`${source} is not a private key that can sign (its text between the markers does not read as one): ${getNew}`);
  }
}
