/** One commit of a repository's recent history, as the Custodian reads it: what it says and which files it changed. */
export interface CommitRecord {
  oid: string;
  /** Committer time, in seconds since 1970. */
  time: number;
  /** The whole message: subject, body and trailers. */
  message: string;
  /**
   * The paths it changed against its parent: added, modified and deleted files (a rename is both). `git log` also
   * names links and submodules, the fetched history does not; neither is ever a candidate to rank.
   */
  files: string[];
}

/** How far back the history reaches: months before the head commit's time, and at most this many commits (the newest kept). */
export interface HistoryWindow {
  months: number;
  maxCommits: number;
}

/** The window jobs read by default: a year of commits, and no more than 5,000 of them. */
export const DEFAULT_HISTORY_WINDOW: HistoryWindow = { months: 12, maxCommits: 5000 };

/** The window a repository's config asks for (`history_months`), or null when it reads no history. */
export function historyWindow(config: { history_months: number }): HistoryWindow | null {
  return config.history_months > 0 ? { ...DEFAULT_HISTORY_WINDOW, months: config.history_months } : null;
}

const SECONDS_PER_MONTH = 30.44 * 24 * 3600;

/** The earliest committer time a window keeps, for a head commit made at `headTime` (seconds). */
export function windowStart(headTime: number, window: HistoryWindow): number {
  return Math.floor(headTime - window.months * SECONDS_PER_MONTH);
}

/** The newest `window.maxCommits` of the records made within the window, newest first. */
export function keepWindow(commits: CommitRecord[], headTime: number, window: HistoryWindow): CommitRecord[] {
  const start = windowStart(headTime, window);
  return commits
    .filter((commit) => commit.time >= start)
    .sort((a, b) => b.time - a.time || (a.oid < b.oid ? -1 : 1))
    .slice(0, window.maxCommits);
}
