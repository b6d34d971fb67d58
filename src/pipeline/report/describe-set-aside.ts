import type { SetAsideFile } from "../types.js";

const VERDICT: Record<SetAsideFile["kind"], string> = {
  "no-change": "no change needed",
  unopenable: "cannot be changed",
  "needs-human": "protected, a person must change it",
};

/** The Manager's verdict on a file it made no task of, in words: "no change needed: <why>" and the like. */
export function describeSetAside(file: SetAsideFile): string {
  return `${VERDICT[file.kind]}: ${file.description.trim()}`;
}
