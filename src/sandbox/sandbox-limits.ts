/** What one command may use inside the sandbox, beyond its timeout. */
export interface SandboxLimits {
  /** Processes and threads its user may have at once (RLIMIT_NPROC): a fork bomb stops here. */
  processes: number;
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** The largest file it may write (RLIMIT_FSIZE), in its copy of the checkout as in /tmp. */
  fileBytes: number;
  /** Each process's data: heap and private writable mappings (RLIMIT_DATA; address space reserved by V8 or a JVM is not counted). */
  memoryBytes: number;
  /** The size of its private /tmp, which holds its HOME too (a tmpfs: memory, given back when it ends). */
  tmpBytes: number;
  /** The size of its private /dev/shm (a tmpfs too), where Python's multiprocessing keeps its locks and queues. */
  shmBytes: number;
}

const MIB = 1024 * 1024;

/** Limits that let a real test suite run (jest and pytest-xdist workers, a build's compilers) and stop a runaway one. */
export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 1024,
  cpuSeconds: 3600,
  fileBytes: 1024 * MIB,
  memoryBytes: 4096 * MIB,
  tmpBytes: 1024 * MIB,
  shmBytes: 256 * MIB,
};
