/** The coding stage (Developers and QA Engineers); `runCodingTasks` is also the entry of revisions. */
export { runCodingTasks } from "./run-coding-tasks.js";
