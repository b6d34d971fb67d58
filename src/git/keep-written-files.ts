import type { ClonedFile, CloneSink, WrittenTree } from "./write-worktree.js";

// Most bytes of written files kept for the first listing; a larger work tree is read back from the disk.
const MAX_KEPT_WRITTEN_BYTES = 256 * 2 ** 20;

/** The files a clone wrote and its folders, kept to be taken once (see keepWrittenFiles). */
export interface KeptFiles extends CloneSink {
  /** What the clone wrote, once it is all written; then forgotten (undefined after, and past the bound). */
  take(): WrittenTree | undefined;
  /** Whether it still keeps what it is handed: not past the bound, not taken. */
  readonly keeping: boolean;
}

/**
 * Keeps the files a clone writes, handed to it as a sink (see CloneSink), for the work to take once up to `maxBytes`
 * of them, so that the first listing of the work tree need not read it all back: past the bound none are kept, and
 * the work tree is read back from the disk. A clone tried again keeps what it writes, not what the failed one wrote.
 */
export function keepWrittenFiles(maxBytes = MAX_KEPT_WRITTEN_BYTES): KeptFiles {
  let kept: ClonedFile[] | undefined = [];
  let made: string[] | undefined;
  let bytes = 0;
  return {
    start: () => {
      kept = [];
      made = undefined;
      bytes = 0;
    },
    add: async (files) => {
      if (!kept) return;
      for (const file of files) bytes += file.bytes.length;
      if (bytes > maxBytes) kept = undefined;
      else kept.push(...files);
    },
    done: (folders) => {
      made = folders;
    },
    take: () => {
      const taken = kept && made && { files: kept, folders: made };
      kept = undefined;
      return taken;
    },
    get keeping() {
      return kept !== undefined;
    },
  };
}
