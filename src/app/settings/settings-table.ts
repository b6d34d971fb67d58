import type { SettingRow } from "./define-setting.js";
import { COST_ROWS } from "./cost-rows.js";
import { ENVIRONMENT_ROWS } from "./environment-rows.js";
import { JOB_ROWS } from "./job-rows.js";
import { RUNNER_ROWS } from "./runner-rows.js";
import { SERVE_ROWS } from "./serve-rows.js";
import { SESSION_ROWS } from "./session-rows.js";
import { STORE_ROWS } from "./store-rows.js";

/**
 * Every environment variable MAGIS reads, in the order `magis serve` checks them: mistyped ones stop it before its
 * store is opened, all named at once in this order. readSettings reads them into one typed object;
 * docs/configuration.md and each command's --help are generated from them (`npm run docs:config`); a test fails on a
 * variable read anywhere else.
 */
export const SETTINGS_TABLE = [
  ...SERVE_ROWS,
  ...SESSION_ROWS,
  ...JOB_ROWS,
  ...COST_ROWS,
  ...ENVIRONMENT_ROWS,
  ...STORE_ROWS,
  ...RUNNER_ROWS,
] as const satisfies readonly SettingRow[];

type Row = (typeof SETTINGS_TABLE)[number];
type ValueOf<R> = R extends { unsetValue: infer T } ? T : never;

/** Every setting, read and checked, by part: `settings.model.timeoutMs`. */
export type Settings = {
  readonly [P in Row["part"]]: { readonly [R in Extract<Row, { part: P }> as R["key"]]: ValueOf<R> };
};
