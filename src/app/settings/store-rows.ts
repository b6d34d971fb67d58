import { setting, type SettingRow } from "./define-setting.js";

const { wholeNumber, text } = setting;
const SERVE = ["web", "worker"] as const;

/** Where job records and the evolution memory are kept: PostgreSQL, or a SQLite file. */
export const STORE_ROWS = [
  text({
    part: "store",
    key: "databaseUrl",
    name: "DATABASE_URL",
    readers: [...SERVE, "cli"],
    kind: "secret URL",
    about: "A PostgreSQL database (postgres://…) holding the job records, the evolution memory and the queue, shared by every process of the app.",
  }),
  wholeNumber({
    part: "store",
    key: "poolSize",
    name: "MAGIS_DB_POOL_SIZE",
    readers: [...SERVE, "cli"],
    fallback: 10,
    min: 1,
    unit: "connections",
    meaning: "the PostgreSQL connections one process may hold",
    onlyWhen: { says: "DATABASE_URL is set", holds: (read) => Boolean(read.DATABASE_URL) },
    about: "PostgreSQL connections one process may hold (a worker's heartbeat has one more); keep it above MAGIS_JOBS_CONCURRENCY + 1.",
  }),
  wholeNumber({
    part: "store",
    key: "sessionDays",
    name: "MAGIS_SESSION_DAYS",
    readers: SERVE,
    fallback: 30,
    min: 0,
    max: 3650,
    unit: "days",
    meaning: "the days a job's session is kept after the job ends, 0 for none",
    about:
      "A job's session (what its session page and magis session export show) is removed this long after the job ended, checked at start and every hour; 0 removes it at the first check after the job ends, and a queued or running job's session always stays.",
  }),
  text({
    part: "store",
    key: "sqliteFile",
    name: "MAGIS_DB",
    input: "database",
    readers: [...SERVE, "action", "cli"],
    kind: "path",
    fallbackText: "$XDG_CACHE_HOME/magis/magis.db",
    fallbackTextFor: { action: "a temporary file" },
    about:
      "The SQLite file of the job records and the evolution memory when DATABASE_URL is unset, one default for magis serve and the command line (the Action: a temporary file unless it is set). magis serve goes on with a .magis/magis.db an earlier version left in its working folder, and says so when it starts.",
  }),
  text({
    part: "store",
    key: "cacheHome",
    name: "XDG_CACHE_HOME",
    readers: [...SERVE, "cli"],
    kind: "path",
    fallbackText: "~/.cache",
    about:
      "The user's cache folder, whose magis/ is the bot's state folder: it holds the SQLite file magis.db when MAGIS_DB and DATABASE_URL are unset, and the web role's spool/ when no other folder is set (a relative path is ignored, as the XDG spec says).",
  }),
  text({
    part: "store",
    key: "home",
    name: "HOME",
    readers: [...SERVE, "cli"],
    kind: "path",
    about: "The user's home folder, whose .cache is the cache folder when XDG_CACHE_HOME is unset or relative.",
  }),
] as const satisfies readonly SettingRow[];
