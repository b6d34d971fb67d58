/** Where GitHub is: its web side (sign-in pages, OAuth) and its REST API. */
export interface GitHubUrls {
  web: string;
  api: string;
}

/**
 * GitHub's addresses as the app is configured: github.com and api.github.com, or a GitHub Enterprise Server named by
 * GHE_HOST (and GHE_PROTOCOL), whose API is under /api/v3 of the same host, as Probot calls it.
 */
export function githubUrls(github: { gheHost?: string; gheProtocol?: string }): GitHubUrls {
  if (!github.gheHost) return { web: "https://github.com", api: "https://api.github.com" };
  const web = `${github.gheProtocol ?? "https"}://${github.gheHost}`;
  return { web, api: `${web}/api/v3` };
}
