/** A uniform draw in [0, 1), the same sequence for the same key. */
export type Random = () => number;

/**
 * A pseudo-random sequence seeded by `seed` and `key` (mulberry32 over an FNV-1a hash of both): the noise drawn for one
 * answer depends on the run's seed and on what was asked, never on the order in which concurrent calls arrive.
 */
export function seededRandom(seed: number, key: string): Random {
  let state = hash(`${seed}\u0000${key}`);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, drawn with `random`. */
export function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error("pick needs at least one item to choose from");
  return items[Math.floor(random() * items.length)]!;
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** One of `items`, drawn with `random`, each as often as its weight says. */
export function pickWeighted<T>(random: Random, items: readonly T[], weightOf: (item: T) => number): T {
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  if (items.length === 0 || !(total > 0)) throw new Error("pickWeighted needs at least one item of positive weight to choose from");
  let left = random() * total;
  for (const item of items) {
    left -= weightOf(item);
    if (left < 0) return item;
  }
  return items[items.length - 1]!;
}
