import fs from "node:fs";
import type { KeptEnvironmentRecord } from "../types.js";

/** A record as read: the record, or why it is not one (the file is not there, or holds something else). */
export type ReadRecord = { record: KeptEnvironmentRecord } | { missing: true } | { wrong: string };

/** Reads a kept environment's record.json, trusting nothing of it until each field is what a record holds. */
export function readKeptRecord(file: string, key: string): ReadRecord {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { missing: true };
    return { wrong: `it could not be read (${(error as Error).message})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { wrong: "it is not JSON" };
  }
  const problem = recordProblem(value, key);
  return problem ? { wrong: problem } : { record: value as KeptEnvironmentRecord };
}

/** What is wrong with a record, or null. */
function recordProblem(value: unknown, key: string): string | null {
  if (!isObject(value)) return "it is not an object";
  const { scope, network } = value;
  if (!isObject(scope) || typeof scope.repo !== "string" || scope.repo === "") return "its scope names no repository";
  if (scope.installationId !== undefined && !Number.isSafeInteger(scope.installationId)) return "its installation is not a number";
  if (value.key !== key) return `its key is not its folder's (${key})`;
  if (typeof value.source !== "string") return "it names no source";
  for (const field of ["builtAt", "usedAt"] as const) {
    if (typeof value[field] !== "string" || Number.isNaN(Date.parse(value[field]))) return `its ${field} is not a time`;
  }
  for (const field of ["buildSeconds", "bytes"] as const) {
    const number = value[field];
    if (typeof number !== "number" || !Number.isFinite(number) || number < 0) return `its ${field} is not a number of 0 or more`;
  }
  if (!isObject(value.keyParts)) return "its key parts are not an object";
  if (!Array.isArray(value.checkoutFiles) || !value.checkoutFiles.every((file) => typeof file === "string"))
    return "its checkout files are not a list of paths";
  if (network !== undefined && !(isObject(network) && Array.isArray(network.reached) && Array.isArray(network.refused))) return "its network tally is not one";
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
