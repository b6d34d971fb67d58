/** Milliseconds as a person reads a duration: "850 ms", "12.3 s", "4 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")} min`;
}

/** A count with thousands separators. */
export function formatCount(count: number): string {
  return Math.round(count).toLocaleString("en");
}

/** US dollars: cents for a dollar or more, four decimals below (a model call costs fractions of a cent). */
export function formatDollars(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** A moment as UTC date and time, to the second. */
export function formatTime(at: number): string {
  return new Date(at)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
}
