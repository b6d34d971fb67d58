import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import { CONTRACT_INDEX_CACHE_BYTES, START, type ContractContext } from "./contract-context.js";
import { describeJobContract } from "./job-store-contract.js";
import { describeMemoryContract } from "./memory-store-contract.js";
import { describeSessionContract } from "./session-store-contract.js";
import { describeTriggerContract } from "./trigger-store-contract.js";

/** What the contract asks of the store it opens: the clock its records are stamped with, and the index cache's bound. */
export interface ContractStoreOptions {
  now: () => number;
  indexCacheBytes: number;
}

/**
 * The behaviour every Store keeps (src/store/store.ts), run against one implementation. `open` gives a fresh (empty),
 * migrated store for each test, with the clock and the index-cache bound it is given; `openTwin` a second store on
 * the database `open` gave last, as another process would open it.
 */
export function describeStoreContract(
  label: string,
  open: (options: ContractStoreOptions) => Promise<Store>,
  openTwin: (options: ContractStoreOptions) => Promise<Store>,
): void {
  describe(`the ${label} store`, () => {
    let opened: Store | undefined;
    const twins: Store[] = [];
    let time = START;
    const options = (): ContractStoreOptions => ({ now: () => time, indexCacheBytes: CONTRACT_INDEX_CACHE_BYTES });
    const context: ContractContext = {
      store: () => {
        if (!opened) throw new Error("The contract's store is opened in beforeEach: use it inside a test.");
        return opened;
      },
      advance: (ms) => {
        time += ms;
      },
      twin: async () => {
        const twin = await openTwin(options());
        twins.push(twin);
        return twin;
      },
    };
    beforeEach(async () => {
      time = START;
      opened = await open(options());
    });
    afterEach(async () => {
      for (const twin of twins.splice(0)) await twin.close();
      await opened?.close();
      opened = undefined;
    });

    describeJobContract(context);
    describeTriggerContract(context);
    describeMemoryContract(context);
    describeSessionContract(context);

    const store = context.store;

    it("has applied every migration it knows: migrating again applies nothing", async () => {
      expect(await store().migrate()).toEqual([]);
    });

    it("answers a ping and says where its records are", async () => {
      await expect(store().ping()).resolves.toBeUndefined();
      expect(store().where).not.toBe("");
      expect(store().jobs.where).toBe(store().where);
      expect(store().triggers.where).toBe(store().where);
    });
  });
}
