/** How many bytes of bodies not yet verified the server holds at once: in all, and for one client. */
export interface BodyLimits {
  totalBytes: number;
  perClientBytes: number;
}

/**
 * What the webhook server may hold of request bodies whose signature it has not checked yet. A body is read into
 * memory before its signature can be checked; without a bound, anyone could send many bodies under GitHub's 25 MB
 * cap at once (80 of them took the process to 2 GB). Each request takes bytes as they arrive and gives them back when
 * its body is checked or refused.
 */
export class BodyBudget {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly limits: BodyLimits) {}

  /** Takes `bytes` more for `client`; false, taking nothing, when that would pass either bound. */
  take(client: string, bytes: number): boolean {
    const held = this.byClient.get(client) ?? 0;
    if (this.total + bytes > this.limits.totalBytes || held + bytes > this.limits.perClientBytes) return false;
    this.total += bytes;
    this.byClient.set(client, held + bytes);
    return true;
  }

  /** Gives back `bytes` that `client` took. */
  give(client: string, bytes: number): void {
    this.total -= bytes;
    const left = (this.byClient.get(client) ?? 0) - bytes;
    if (left > 0) this.byClient.set(client, left);
    else this.byClient.delete(client);
  }

  /** Bytes held now, in all. */
  get held(): number {
    return this.total;
  }
}
