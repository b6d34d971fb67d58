import fs from "node:fs";
import path from "node:path";
import { convertAppManifest } from "../../github/client/convert-app-manifest.js";
import type { OctokitClass } from "../../github/types.js";
import { writeEnvValues } from "./write-env-values.js";

/** An app GitHub made from the manifest, and where its credentials were written. */
export interface RegisteredApp {
  id: number;
  name: string;
  /** The app's page on GitHub; `${htmlUrl}/installations/new` installs it. */
  htmlUrl: string;
  envFile: string;
  keyFile: string;
}

/**
 * Turns the code GitHub sent back after registering the app from the manifest into the app's credentials, once
 * (GitHub accepts a code an hour, one time): the private key goes to a file beside `envFile`, readable by its owner
 * only and never overwritten, and `APP_ID`, `PRIVATE_KEY_PATH`, `WEBHOOK_SECRET`, `GITHUB_CLIENT_ID` and
 * `GITHUB_CLIENT_SECRET` into `envFile`, which `magis serve` reads when it starts again; with the app's public address,
 * `MAGIS_PUBLIC_URL` too, which with the client's id and secret turns the session pages on.
 */
export async function registerApp(
  code: string,
  options: { Octokit: OctokitClass; apiBaseUrl: string; envFile: string; publicUrl?: string },
): Promise<RegisteredApp> {
  const app = await convertAppManifest(options.Octokit, options.apiBaseUrl, code);
  if (!app.webhook_secret)
    throw new Error(`GitHub registered the app ${app.name} without a webhook secret: set one on ${app.html_url} and set WEBHOOK_SECRET to it`);
  const day = new Date().toISOString().slice(0, 10);
  // GitHub names the keys it hands out this way (slug, day); one written already is someone's key, and is kept.
  const keyFile = path.join(path.dirname(options.envFile), `${app.slug ?? `app-${app.id}`}.${day}.private-key.pem`);
  try {
    fs.writeFileSync(keyFile, app.pem, { mode: 0o600, flag: "wx" });
  } catch (error) {
    throw new Error(
      `GitHub registered the app ${app.name} (${app.html_url}), but its private key could not be written to ${keyFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}): generate a private key on the app's page, and set APP_ID=${app.id}, PRIVATE_KEY_PATH and WEBHOOK_SECRET by hand`,
      { cause: error },
    );
  }
  writeEnvValues(options.envFile, {
    APP_ID: String(app.id),
    PRIVATE_KEY_PATH: keyFile,
    WEBHOOK_SECRET: app.webhook_secret,
    GITHUB_CLIENT_ID: app.client_id,
    GITHUB_CLIENT_SECRET: app.client_secret,
    ...(options.publicUrl ? { MAGIS_PUBLIC_URL: options.publicUrl } : {}),
  });
  return { id: app.id, name: app.name, htmlUrl: app.html_url, envFile: options.envFile, keyFile };
}
