/**
 * At most `size` tasks at once, shared fairly between owners (installations): when a slot frees, it goes to the next
 * owner in turn that has a task waiting, each owner's tasks in the order they came. A burst from one installation
 * (forty comments) then waits behind itself, not in front of every other installation's next trigger.
 */
export class FairSlots {
  private busy = 0;
  /** Waiting tasks by owner; an owner is here while it has some. */
  private readonly waiting = new Map<string, (() => void)[]>();
  /** The owners with waiting tasks, in the order they are served. */
  private readonly turns: string[] = [];

  constructor(private readonly size: number) {}

  /** Runs `task` when a slot is free for `owner`. */
  async run<T>(owner: string, task: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.enqueue(owner, resolve));
    else this.busy++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next owner in turn, so a newcomer cannot take it in between.
      const next = this.dequeue();
      if (next) next();
      else this.busy--;
    }
  }

  private enqueue(owner: string, start: () => void): void {
    const line = this.waiting.get(owner);
    if (line) return void line.push(start);
    this.waiting.set(owner, [start]);
    this.turns.push(owner);
  }

  private dequeue(): (() => void) | undefined {
    const owner = this.turns.shift();
    if (owner === undefined) return undefined;
    const line = this.waiting.get(owner)!;
    const next = line.shift();
    // Its turn is over: it goes to the back of the round if it has more waiting.
    if (line.length > 0) this.turns.push(owner);
    else this.waiting.delete(owner);
    return next;
  }
}
