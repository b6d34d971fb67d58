import { Context, type Logger } from "probot";
import { isGitHubOutage } from "../github/client/is-github-outage.js";
import type { Octokit } from "../github/types.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { JobStoreBusyError, type TriggerStore } from "../store/store.js";
import type { Decision, NewTrigger, TriggerRecord } from "../store/triggers.js";
import { DecisionRetries } from "./decision-retries.js";
import { FairSlots } from "./fair-slots.js";
import { SpoolReplayer, type ReplayEvent } from "./replay-spool.js";
import type { TriggerSpool } from "./trigger-spool.js";
import type { RuleEvent, TriggerRule } from "./trigger-rule.js";

/** What the desk needs from the app. */
export interface TriggerDeskOptions {
  /** An installation's client (for deciding triggers left undecided by an earlier process). */
  auth: (installationId: number) => Promise<Octokit>;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
  /**
   * How long the process that records a trigger holds it before another may decide it (0, the default, in a store one
   * process uses). With a shared store the desk also looks every half lease for triggers whose lease ran out: their
   * recorder died (or fell that far behind) before deciding them.
   */
  leaseMs?: number;
  /**
   * Where a delivery goes when the store cannot take it (PostgreSQL down for a moment): answered, kept, and recorded
   * when the store answers again. Without one, or when it is full or its folder may not be used, the delivery is
   * answered 503. A spool folder another user may write to stops `start`.
   */
  spool?: TriggerSpool;
  /** Told what happened to deliveries on the way (see DeskEvent). */
  onEvent?: (event: DeskEvent) => void;
  /**
   * How often spooled deliveries are offered to the store again, the first pause before a failed decision is tried
   * again, and how long a delivery waits for the store before it is spooled (tests shorten them).
   */
  timing?: Partial<typeof DEFAULT_TIMING>;
}

/**
 * What the desk reports for the metrics: a delivery spooled, replayed from the spool, refused with no room to keep it, a
 * file in the spool set aside as holding no delivery of its own, a decision tried again, or given up on.
 */
export type DeskEvent = "spooled" | ReplayEvent | "spool_full" | "retried" | "gave_up";

// GitHub gives up on a webhook after 10 s: a store silent for half of that (a database that drops packets) has it spooled.
const DEFAULT_TIMING = { replayMs: 2_000, retryFirstMs: 30_000, recordWaitMs: 5_000 };

/** The store could not take a delivery and there was no room to keep it: answered 503, with the reason. */
export class StoreUnavailableError extends Error {
  readonly status = 503;
}

/**
 * Where webhooks arrive. A delivery one of the rules wants is recorded at once, with its payload, and the webhook is
 * answered; the checks that call GitHub run afterwards. GitHub gives up on a webhook after 10 s and never sends it
 * again, so a slow or unreachable API must not cost the trigger: it stays recorded, and its outcome says what became
 * of it. Triggers an earlier process recorded but never decided are decided when the desk starts.
 */
export class TriggerDesk {
  private readonly inFlight = new Set<Promise<void>>();
  /** The deliveries this desk is deciding: a sweep never takes one of its own twice. */
  private readonly deciding = new Set<string>();
  private sweeper: NodeJS.Timeout | null = null;
  /** Deliveries found recorded before, until the server asks (see `wasRedelivery`); bounded so nothing unasked piles up. */
  private readonly redeliveries = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();
  // A burst of webhooks must not become a burst of API calls: a few decisions at a time, the installations in turn.
  private readonly slots = new FairSlots(4);
  private readonly replayer: SpoolReplayer | undefined;
  /** Decisions GitHub failed, to be made again once it may be back. */
  private readonly retries: DecisionRetries;

  constructor(
    private readonly store: TriggerStore,
    private readonly rules: TriggerRule[],
    private readonly options: TriggerDeskOptions,
  ) {
    this.retries = new DecisionRetries(this.timing.retryFirstMs, (delivery) => this.decideAgain(delivery));
    const { spool, log, onEvent } = options;
    this.replayer =
      spool &&
      new SpoolReplayer(spool, {
        everyMs: this.timing.replayMs,
        record: (trigger) => this.store.record(trigger, this.leaseMs),
        decide: (trigger) => this.schedule(trigger, () => this.rebuild({ ...trigger, outcome: null, detail: null, decidedAt: null })),
        log,
        onEvent,
      });
  }

  /** The webhook events the rules listen to, for `app.on`. */
  get events(): RuleEvent[] {
    return [...new Set(this.rules.map((r) => r.event))];
  }

  /** Probot's handler: records a wanted delivery and schedules its decision; makes no call to GitHub. */
  readonly receive = async (context: Context<RuleEvent>): Promise<void> => {
    const { payload } = context;
    const event = eventOf(context);
    if (!payload.installation || !payload.repository) return;
    if (this.rulesFor(event, context).length === 0) return;
    const number = "issue" in payload ? payload.issue.number : "pull_request" in payload ? payload.pull_request.number : 0;
    const trigger = {
      delivery: context.id,
      event,
      installationId: payload.installation.id,
      owner: payload.repository.owner.login,
      repo: payload.repository.name,
      number,
      payload: { ...payload },
      receivedAt: Date.now(),
    };
    // A store that cannot take it now (SQLite locked by another process past a short wait) throws JobStoreBusyError,
    // which Probot answers 503: the delivery can be redelivered. One that fails otherwise (down) has it spooled.
    const kept = await this.recordOrSpool(trigger, context);
    if (kept === "spooled") return;
    if (kept === "redelivery") {
      context.log.info({ delivery: context.id, event }, "a redelivered webhook; it was recorded before and is not acted on twice");
      if (this.redeliveries.size >= 1000) this.redeliveries.clear();
      this.redeliveries.add(context.id);
      return;
    }
    this.schedule(trigger, () => Promise.resolve(context));
  };

  /**
   * Records a delivery, or when the store fails or does not answer in time, spools it to be recorded later; says which,
   * or that it was recorded before. A record that lands after the delivery was spooled has it decided all the same.
   */
  private async recordOrSpool(trigger: NewTrigger, context: Context<RuleEvent>): Promise<"recorded" | "redelivery" | "spooled"> {
    try {
      const recording = this.store.record(trigger, this.leaseMs);
      let waiting: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timed out">((resolve) => (waiting = setTimeout(() => resolve("timed out"), this.timing.recordWaitMs)));
      const fresh = await Promise.race([recording, timedOut]).finally(() => clearTimeout(waiting));
      if (fresh !== "timed out") return fresh ? "recorded" : "redelivery";
      recording.then(
        (late) => late && this.schedule(trigger, () => Promise.resolve(context)),
        () => {},
      );
      throw new Error(`the store did not answer within ${this.timing.recordWaitMs / 1000} s`);
    } catch (error) {
      if (error instanceof JobStoreBusyError) throw error;
      const why = redactSecrets(error instanceof Error ? error.message : String(error), []);
      const { spool, onEvent } = this.options;
      const notKept = spool ? spool.add(trigger) : "no spool is set up";
      if (!spool || notKept !== undefined) {
        onEvent?.("spool_full");
        this.options.log.warn(
          { delivery: trigger.delivery, event: trigger.event, error: why, spool: notKept },
          "ALERT: the store could not record a delivery and the spool could not keep it; answered 503, redeliver it from the app's settings once the store is back",
        );
        throw new StoreUnavailableError(`the store could not record this delivery (${why}), and it could not be kept to record later; redeliver it`);
      }
      onEvent?.("spooled");
      this.options.log.warn(
        { delivery: trigger.delivery, event: trigger.event, error: why, spooled: spool.depth },
        `ALERT: the store could not record a delivery; it is kept in ${spool.dir} and recorded once the store answers`,
      );
      this.replayer?.soon();
      return "spooled";
    }
  }

  private get timing(): typeof DEFAULT_TIMING {
    return { ...DEFAULT_TIMING, ...this.options.timing };
  }

  /** Whether `delivery` was answered as a redelivery (asked once, by the server counting its answers). */
  wasRedelivery(delivery: string): boolean {
    return this.redeliveries.delete(delivery);
  }

  /**
   * Decides the triggers an earlier process recorded but did not decide (it stopped in between). With a shared store
   * it goes on looking for such triggers every half lease, while it runs: another web process may die at any time.
   */
  async start(): Promise<void> {
    // A spool folder another user may write to would have their files replayed as GitHub's deliveries.
    const spool = this.options.spool;
    const problem = spool?.folderProblem();
    if (problem) throw new Error(problem);
    // Deliveries an earlier process spooled and never recorded (it stopped while the store was down).
    if (spool && spool.depth > 0) this.replayer?.soon();
    await this.takeUndecided();
    if (this.leaseMs <= 0) return;
    this.sweeper = setInterval(() => {
      this.takeUndecided().catch((error: unknown) =>
        this.options.log.warn({ error: redactSecrets(String(error), []) }, "could not look for triggers other processes left undecided; looking again later"),
      );
    }, this.leaseMs / 2);
  }

  /** Stops looking for triggers other processes left undecided, replaying the spool and trying decisions again. */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.replayer?.stop();
    this.retries.stop();
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 0;
  }

  private async takeUndecided(): Promise<void> {
    const undecided = await this.store.claimUndecided(this.leaseMs);
    for (const trigger of undecided) if (!this.deciding.has(trigger.delivery)) this.schedule(trigger, () => this.rebuild(trigger));
  }

  /** Resolves once every decision under way has been made and recorded. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private schedule(
    trigger: { delivery: string; event: string; installationId: number; owner: string; repo: string; number: number; receivedAt: number },
    contextOf: () => Promise<Context<RuleEvent>>,
  ): void {
    // Triggers on one issue or pull request are decided in the order they arrived, so their jobs queue in that order;
    // the first waits for setImmediate, which runs once Probot has written the webhook's answer.
    const key = `${trigger.owner}/${trigger.repo}#${trigger.number}`.toLowerCase();
    const before = this.chains.get(key) ?? new Promise<void>((resolve) => setImmediate(resolve));
    const decision: Promise<void> = before
      .then(() => this.slots.run(String(trigger.installationId), () => this.decide(trigger, contextOf)))
      .finally(() => {
        this.inFlight.delete(decision);
        this.deciding.delete(trigger.delivery);
        if (this.chains.get(key) === decision) this.chains.delete(key);
      });
    this.chains.set(key, decision);
    this.inFlight.add(decision);
    this.deciding.add(trigger.delivery);
  }

  // Never throws: whatever happens, the outcome is recorded (or, with the store down, logged).
  private async decide(trigger: { delivery: string; event: string; receivedAt: number }, contextOf: () => Promise<Context<RuleEvent>>): Promise<void> {
    const { delivery, event } = trigger;
    let decision: Decision = { outcome: "ignored", detail: "no rule applies to this event" };
    try {
      const context = await contextOf();
      for (const rule of this.rulesFor(event, context)) {
        decision = await rule.decide(context, new Date(trigger.receivedAt).toISOString());
        if (decision.outcome !== "ignored") break;
      }
      this.retries.forget(delivery);
    } catch (error) {
      decision = { outcome: "failed", detail: `deciding about it failed: ${redactSecrets(error instanceof Error ? error.message : String(error), [])}` };
      // GitHub's own trouble passes: the decision is tried again, for a while, with its payload (a failed one keeps it).
      if (isGitHubOutage(error)) {
        const pause = this.retries.schedule(trigger);
        if (pause === null) this.options.onEvent?.("gave_up");
        else decision.detail += `; GitHub failed it, so it is tried again in ${Math.round(pause / 1000)} s`;
      }
      this.options.log.warn({ delivery, event, error: decision.detail }, "a trigger could not be decided");
    }
    try {
      // The decision was acted on already: the store waits out another process's lock as long as a job's record would.
      await this.store.decide(delivery, decision.outcome, decision.detail);
    } catch (error) {
      // The decision was acted on; only its record is missing, and the log keeps it.
      this.options.log.warn({ delivery, event, decision, error: String(error) }, "a trigger's outcome could not be recorded");
    }
    this.options.log.info({ delivery, event, outcome: decision.outcome, detail: decision.detail }, "magis trigger decided");
  }

  /** Decides a delivery again from its record, if it is still recorded failed (another process may have decided it). */
  private decideAgain(delivery: string): void {
    this.store
      .get(delivery)
      .then((record) => {
        if (record?.outcome !== "failed") return;
        this.options.onEvent?.("retried");
        this.schedule(record, () => this.rebuild(record));
      })
      .catch((error: unknown) => this.options.log.warn({ delivery, error: redactSecrets(String(error), []) }, "could not read a trigger to decide it again"));
  }

  // The rules that want this delivery: of its event, taking bots' events only where a rule says so.
  private rulesFor(event: string, context: Context<RuleEvent>): TriggerRule[] {
    return this.rules.filter((r) => r.event === event && (r.fromBots || !context.isBot) && r.wants(context.payload));
  }

  // A trigger recorded by an earlier process: its context again, from the stored payload and a fresh client.
  private async rebuild(trigger: TriggerRecord): Promise<Context<RuleEvent>> {
    return triggerContext(trigger, await this.options.auth(trigger.installationId), this.options.log);
  }
}

/** The event of a delivery with its action, as the rules name it: `issues.labeled`. */
function eventOf(context: Context<RuleEvent>): string {
  return `${context.name}.${"action" in context.payload ? context.payload.action : ""}`;
}

/**
 * The context of a delivery taken outside Probot's webhook path: a trigger recorded by an earlier process, or the
 * Action's event file. Its payload is the one GitHub sent for `event` (recorded as it came); its log is the app's.
 */
export function triggerContext(
  delivery: { delivery: string; event: string; payload: object },
  octokit: Octokit,
  log: TriggerDeskOptions["log"],
): Context<RuleEvent> {
  const [name] = delivery.event.split(".");
  const event = { id: delivery.delivery, name, payload: delivery.payload } as ConstructorParameters<typeof Context<RuleEvent>>[0];
  return new Context<RuleEvent>(event, octokit, contextLog(log));
}

/** The logger a Context built outside Probot's webhook path carries: Probot wants a pino logger; the rules use info and warn. */
function contextLog(log: TriggerDeskOptions["log"]): Logger {
  const shim = { info: log.info, warn: log.warn, debug: () => {}, trace: () => {}, error: log.warn, fatal: log.warn, child: () => shim };
  return shim as unknown as Logger;
}
