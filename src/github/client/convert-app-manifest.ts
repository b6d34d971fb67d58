import type { OctokitClass } from "../types.js";

/** What GitHub answers to a manifest's code (POST /app-manifests/{code}/conversions), as far as the app keeps it. */
export interface AppConversion {
  id: number;
  slug?: string;
  name: string;
  html_url: string;
  pem: string;
  webhook_secret: string | null;
  client_id: string;
  client_secret: string;
}

/**
 * Exchanges the code GitHub sent back after registering an app from its manifest for the app's credentials. The
 * request carries no credentials (the code is the proof), so it is made with a fresh client of `Octokit`.
 */
export async function convertAppManifest(Octokit: OctokitClass, apiBaseUrl: string, code: string): Promise<AppConversion> {
  const octokit = new Octokit({ baseUrl: apiBaseUrl });
  const { data } = await octokit.request("POST /app-manifests/{code}/conversions", { code });
  return data as AppConversion;
}
