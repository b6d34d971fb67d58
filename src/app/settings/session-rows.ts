import { heldValue } from "../../lib/env-number.js";
import { setting, type Reader, type SettingRow } from "./define-setting.js";

const { text, flag } = setting;
const SERVE: readonly Reader[] = ["web", "worker"];
/** Shorter than this, a signing key could be guessed; 32 characters of a password generator are not. */
export const MIN_SESSION_SECRET = 32;
// The row kinds of define-setting read text that cannot fail; these two refuse what they cannot use, so they are written out.
const serverRow = <const K extends string, T>(row: SettingRow<"server", K, T>): SettingRow<"server", K, T> => row;

/**
 * Who may see a job's session page: the App's OAuth client (written by the setup page), where people reach the web
 * role, the key its cookies are signed with, and whether public repositories' sessions are open to everyone. The
 * page is on only with GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET and MAGIS_PUBLIC_URL (see sessionPagesFrom).
 */
export const SESSION_ROWS = [
  text({
    part: "app",
    key: "clientId",
    name: "GITHUB_CLIENT_ID",
    readers: SERVE,
    kind: "text",
    about:
      "The GitHub App's OAuth client ID (the setup page writes it): with GITHUB_CLIENT_SECRET and MAGIS_PUBLIC_URL, people sign in with GitHub to see a job's session page.",
  }),
  text({
    part: "app",
    key: "clientSecret",
    name: "GITHUB_CLIENT_SECRET",
    readers: SERVE,
    kind: "secret",
    about: "The GitHub App's OAuth client secret (the setup page writes it): the sign-in to the session pages exchanges GitHub's code with it.",
  }),
  serverRow({
    part: "server",
    key: "publicUrl",
    name: "MAGIS_PUBLIC_URL",
    readers: SERVE,
    shape: "URL",
    fallbackText: "none: the session pages are off, and no link to them is posted",
    about:
      "Where people reach the web role (https://magis.example.com): the session pages, the links to them in status comments and pull requests, and the sign-in's callback ({MAGIS_PUBLIC_URL}/auth/github/callback, the App's callback URL) are under it.",
    checked: true,
    unsetValue: undefined as string | undefined,
    read: (env) => readPublicUrl(env.MAGIS_PUBLIC_URL),
  }),
  serverRow({
    part: "server",
    key: "sessionSecret",
    name: "MAGIS_SESSION_SECRET",
    readers: ["web"],
    shape: "secret",
    fallbackText: "derived from GITHUB_CLIENT_SECRET",
    about: `The key the sign-in's cookies are signed with, at least ${MIN_SESSION_SECRET} characters; every web process needs the same one (the default, derived from GITHUB_CLIENT_SECRET, is), and changing it signs everyone out.`,
    checked: true,
    unsetValue: undefined as string | undefined,
    read: (env) => readSessionSecret(env.MAGIS_SESSION_SECRET),
  }),
  flag({
    part: "server",
    key: "sessionsPublic",
    name: "MAGIS_SESSIONS_PUBLIC",
    readers: ["web"],
    on: "1",
    about:
      "Opens the session pages of public repositories to everyone, signed in or not; otherwise a visitor signs in and needs read permission on the repository.",
  }),
] as const;

/** MAGIS_PUBLIC_URL as an http(s) origin (no path, query or fragment), without a trailing slash; unset is undefined. */
function readPublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const refuse = (why: string) =>
    new Error(`MAGIS_PUBLIC_URL ${heldValue(raw, "an address")}, ${why}: set it to where people reach the web role, such as https://magis.example.com`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refuse("which is not an address");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("which is not an http or https address");
  if (url.search || url.hash || url.username || url.password) throw refuse("which holds more than a scheme, a host and a port");
  // Every page, link and redirect of the web role is under / (the sign-in's callback, /jobs/…): a path would be dropped.
  if (url.pathname !== "/")
    throw refuse(`which has a path (${url.pathname}); the web role serves its pages at the root of its address, so serve it on a host of its own`);
  return url.origin;
}

/** MAGIS_SESSION_SECRET, refused when too short to sign with; unset is undefined (the key is then derived). */
function readSessionSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < MIN_SESSION_SECRET)
    throw new Error(
      `MAGIS_SESSION_SECRET holds ${raw.length} characters, fewer than the ${MIN_SESSION_SECRET} a signing key needs: set it to a longer random text (openssl rand -hex 32), or leave it unset to derive it from GITHUB_CLIENT_SECRET`,
    );
  return raw;
}
