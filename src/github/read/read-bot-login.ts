import type { Octokit } from "../types.js";

/** The login of an App's bot account, `<app-slug>[bot]`, asked of GitHub with the App's own client (authenticated as the App). */
export async function readBotLogin(asApp: Octokit): Promise<string> {
  const { data: self } = await asApp.rest.apps.getAuthenticated();
  return `${self!.slug}[bot]`;
}
