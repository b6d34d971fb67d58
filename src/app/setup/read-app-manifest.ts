import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

/** app.yml, beside package.json: three folders up from src/app/setup/ and from dist/app/setup/ alike. */
export const APP_MANIFEST_FILE = fileURLToPath(new URL("../../../app.yml", import.meta.url));

/** Where the registered app's webhooks go, and where GitHub sends the browser back with the registration's code. */
export interface ManifestUrls {
  webhook: string;
  redirect: string;
  /** Where GitHub sends a person back after "Sign in with GitHub" (the session pages), when the app's public address is known. */
  callback?: string;
}

/**
 * The GitHub App manifest the setup page posts to GitHub: app.yml's name, description, events and permissions, with
 * this server's webhook URL and the redirect back to it. Read when the setup page starts, so that a broken app.yml
 * stops the start saying so rather than failing a click later.
 */
export function readAppManifest(file = APP_MANIFEST_FILE): (urls: ManifestUrls) => Record<string, unknown> {
  let manifest: unknown;
  try {
    manifest = parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`the app's manifest ${file} could not be read (${error instanceof Error ? error.message : String(error)}): reinstall the package`, {
      cause: error,
    });
  }
  if (typeof manifest !== "object" || manifest === null) throw new Error(`the app's manifest ${file} holds no YAML mapping: reinstall the package`);
  return (urls) => ({
    ...manifest,
    hook_attributes: { url: urls.webhook, active: true },
    redirect_url: urls.redirect,
    ...(urls.callback ? { callback_urls: [urls.callback] } : {}),
  });
}
