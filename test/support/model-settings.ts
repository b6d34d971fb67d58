import { readSettings } from "../../src/app/settings/read-settings.js";
import type { Env } from "../../src/app/settings/define-setting.js";

/** The model's settings `env` gives (by default none: every default), read as `magis resolve` reads them. */
export function modelSettings(env: Env = {}) {
  return readSettings(env, { door: "cli" }).model;
}
