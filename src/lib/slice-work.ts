/** Awaited between pieces of a long synchronous job; resolves at once or after letting the event loop run. */
export type Pause = () => Promise<void> | undefined;

/**
 * A pause that yields to the event loop (setImmediate) once `sliceMs` of work have passed since the
 * last yield, and otherwise costs nothing. Indexing a repository takes seconds of CPU; in the process
 * that answers GitHub's webhooks, which gives up on a delivery after 10 s, nothing may hold the loop
 * that long, and a 20 ms slice makes the yields cost well under a percent of the work.
 */
export function sliceWork(sliceMs = 20): Pause {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}
