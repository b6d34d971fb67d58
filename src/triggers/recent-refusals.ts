/** How long a sender refused on an issue is not checked or answered again. */
const REFUSAL_MEMORY_MS = 60 * 60 * 1000;
/** Most refusals remembered; the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The senders this process refused lately, by issue: a sender without permission who comments `/magis retry` thirty
 * times gets one answer, and the other twenty-nine cost no call to GitHub (before, each cost a reply and four calls,
 * and a burst from one installation held up every other's triggers). A web process remembers its own refusals.
 */
export class RecentRefusals {
  private readonly refused = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether `sender` was refused on `issue` (owner/repo#number) within the hour. */
  has(issue: string, sender: string): boolean {
    const at = this.refused.get(keyOf(issue, sender));
    return at !== undefined && this.now() - at < REFUSAL_MEMORY_MS;
  }

  /** Remembers that `sender` was refused on `issue` now. */
  add(issue: string, sender: string): void {
    const key = keyOf(issue, sender);
    this.refused.delete(key);
    this.refused.set(key, this.now());
    // A Map keeps insertion order: the first key is the oldest refusal.
    while (this.refused.size > MAX_REMEMBERED) this.refused.delete(this.refused.keys().next().value!);
  }
}

function keyOf(issue: string, sender: string): string {
  return `${issue.toLowerCase()} ${sender.toLowerCase()}`;
}
