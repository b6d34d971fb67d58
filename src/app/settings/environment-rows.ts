import { setting, type SettingRow } from "./define-setting.js";

const { wholeNumber, text } = setting;

/** Where a worker keeps the environments it built, and how much of them. */
export const ENVIRONMENT_ROWS = [
  wholeNumber({
    part: "environments",
    key: "cacheMb",
    name: "MAGIS_ENV_CACHE_MB",
    readers: ["worker", "cli"],
    fallback: 10_240,
    min: 0,
    unit: "megabytes",
    meaning: "the megabytes of set-up environments a worker may keep between jobs, 0 for none",
    about:
      "The set-up environments (the checkout's copy after setup, and its home) kept under MAGIS_ENV_DIR, so that a later job of the repository with the same key runs only the maintenance steps; the least recently used go beyond the bound, and 0 keeps none (every job builds its own).",
  }),
  text({
    part: "environments",
    key: "dir",
    name: "MAGIS_ENV_DIR",
    readers: ["web", "worker", "cli"],
    kind: "path",
    fallbackText: "environments in the bot's state folder ($XDG_CACHE_HOME/magis/environments)",
    about:
      "The folder of the kept environments, the bot's own (0700), hidden from every command; each worker machine keeps its own, and the web role removes an uninstalled installation's from it where it shares the machine.",
  }),
] as const satisfies readonly SettingRow[];
