import { AGENTS } from "../../config.js";
import type { ModelPrices } from "../../llm/prices.js";

/** What the page shows beyond the session's entries: the live stream, the viewer and their buttons, the prices. */
export interface SessionPageOptions {
  /** The served page: its script (session-live-script.ts) follows the job's entries as server-sent events. */
  live?: { eventsUrl: string; scriptUrl: string };
  /** Buttons (POST forms with a hidden `csrf` field), each shown only when its URL is given and the job still runs. */
  actions?: { stopUrl?: string; goUrl?: string; csrfToken: string };
  /** Who is signed in, and where they sign out (a POST form; its CSRF token is `csrfToken`, else `actions.csrfToken`). */
  viewer?: { login: string; signOutUrl: string; csrfToken?: string };
  /** Prices for calls the recorder priced not (src/llm/prices.ts). */
  prices?: ModelPrices;
}

/** The ids of the page's parts, which the live script replaces whole, and of the lists it appends entries to. */
export const PART = {
  header: "session-header",
  steering: "session-steering",
  timeline: "session-timeline",
  totals: "session-totals",
  result: "session-result",
} as const;

export const LIST = {
  work: "session-work",
  commands: "session-commands",
  /** An agent's conversation; calls of an agent MAGIS does not have (an old or odd record) go to one list of others. */
  calls: (agent: string) => `calls-${(AGENTS as readonly string[]).includes(agent) ? agent : "other"}`,
} as const;
