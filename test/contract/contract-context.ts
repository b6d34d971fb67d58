import type { Store } from "../../src/store/store.js";

/** The time every contract test starts at (ms since the epoch). */
export const START = 1_750_000_000_000;

/** The index cache's bound in the contract: small, so that a few entries of 100 characters fill it. */
export const CONTRACT_INDEX_CACHE_BYTES = 1000;

/** What each part of the contract works on: the store of the current test, and the clock its records are stamped with. */
export interface ContractContext {
  store(): Store;
  /** Moves the store's clock forward. */
  advance(ms: number): void;
  /** A second store on the same database, as another process would open it (closed after the test). */
  twin(): Promise<Store>;
}
