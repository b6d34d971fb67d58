import { parse } from "yaml";

/** Why the app asks for each webhook event of app.yml: a row of the docs each. */
const EVENTS: Record<string, string> = {
  issues: "a label added (a run starts) or removed, an issue closed (its run is cancelled)",
  issue_comment: "`/magis retry` and `/magis go` on an issue, `/magis revise` on the bot's pull request",
  pull_request_review: "a review of the bot's pull request (a reply in one of its threads arrives as a review too): a revision, answered in each thread",
  check_suite: "CI finishing on the bot's pull requests (every CI that reports checks, GitHub Actions included): a failure is fixed",
};

/** Why the app asks for each permission of app.yml. */
const PERMISSIONS: Record<string, string> = {
  contents: "clone, and commit to its own branches (GraphQL `createCommitOnBranch` and `updateRefs`, or the Git Data API; GitHub signs the commits)",
  issues: "status comments and reactions on the issue",
  pull_requests: "open and update its pull requests, answer in review threads",
  metadata: "repository size, default branch, collaborators' permissions (every app has it)",
  checks: "read the failed checks and their annotations when CI fails on its pull request",
  actions: "read the logs of failed GitHub Actions jobs, for the same",
};

/**
 * The events and permissions of the GitHub App's manifest (app.yml), as a Markdown section with why each is asked
 * for: docs/app.md holds it between markers, written by `npm run docs:config`. An event or a permission without a
 * reason here throws, so the docs cannot fall behind the manifest.
 */
export function renderAppManifestDocs(manifestText: string): string {
  const manifest = parse(manifestText) as { default_events?: string[]; default_permissions?: Record<string, string> };
  const events = manifest.default_events ?? [];
  const permissions = Object.entries(manifest.default_permissions ?? {});
  const why = (table: Record<string, string>, key: string, what: string) => {
    const reason = table[key];
    if (!reason) throw new Error(`app.yml asks for the ${what} ${key}, and src/app/settings/render-app-manifest.ts does not say why: add it there`);
    return reason;
  };
  return [
    "| Event | What the app does with it |",
    "| --- | --- |",
    ...events.map((event) => `| \`${event}\` | ${why(EVENTS, event, "event")} |`),
    "",
    "| Permission | Access | Why |",
    "| --- | --- | --- |",
    ...permissions.map(([name, access]) => `| \`${name}\` | ${access} | ${why(PERMISSIONS, name, "permission")} |`),
    "",
    "Every app also gets the `installation` and `installation_repositories` events: the app uses them to forget a",
    "repository it was removed from (see *Uninstalling*).",
    "",
    "The app does not ask for `workflows`, so GitHub refuses it any commit that changes a file under",
    "`.github/workflows/` (see *When something outside goes wrong*).",
  ].join("\n");
}

/** The markers between which docs/app.md holds what renderAppManifestDocs writes. */
export const APP_MANIFEST_MARKERS = { begin: "<!-- app.yml: written by npm run docs:config -->", end: "<!-- end of app.yml -->" };

/** `page` with the section between the markers replaced by `section`; throws when the markers are missing. */
export function replaceBetweenMarkers(page: string, section: string): string {
  const { begin, end } = APP_MANIFEST_MARKERS;
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/app.md has lost its markers (${begin} … ${end}): put them back where the events and permissions go`);
  return `${page.slice(0, from + begin.length)}\n${section}\n${page.slice(to)}`;
}
