import crypto from "node:crypto";
import { getPrivateKey } from "@probot/get-private-key";
import { UsageError } from "../lib/usage-error.js";

/**
 * Whether the app is registered: APP_ID and a private key both set (serve webhooks), or neither (serve the setup page
 * that registers it). One without the other stops the start, naming the one missing: Probot would fall back to the
 * setup page without a word.
 */
export function isRegistered(app: { appId?: number; privateKey?: string; privateKeyPath?: string }): boolean {
  const hasKey = Boolean(app.privateKey || app.privateKeyPath);
  if (app.appId !== undefined && !hasKey) {
    throw new UsageError(
      "APP_ID is set but neither PRIVATE_KEY nor PRIVATE_KEY_PATH is: set PRIVATE_KEY_PATH to the .pem file generated on the GitHub App's settings page (Private keys), or unset APP_ID to register a new app on the setup page",
    );
  }
  if (app.appId === undefined && hasKey) {
    throw new UsageError(
      `${app.privateKey ? "PRIVATE_KEY" : "PRIVATE_KEY_PATH"} is set but APP_ID is not: set APP_ID to the App ID shown on the GitHub App's settings page`,
    );
  }
  return hasKey;
}

/** Stops the start of a process that takes webhooks without the secret they are signed with. */
export function checkWebhookSecret(app: { webhookSecret?: string }): void {
  if (app.webhookSecret) return;
  throw new UsageError(
    "WEBHOOK_SECRET is not set: set it to the webhook secret on the GitHub App's settings page (the setup page writes it to .env); without it every delivery GitHub signs is refused",
  );
}

/** What is wrong with the model's settings for a process that runs jobs, or undefined when a model can be called. */
export function missingModelSettings(model: { apiKey?: string; baseUrl?: string }): string | undefined {
  if (model.apiKey || model.baseUrl) return undefined;
  return "no model is set up, so every job would fail: set OPENAI_API_KEY (OpenAI's API), or OPENAI_BASE_URL to an OpenAI-compatible server (Azure, vLLM, Ollama), and MAGIS_MODEL";
}

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
