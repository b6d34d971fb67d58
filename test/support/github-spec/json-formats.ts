import type { Ajv } from "ajv";

/** The formats GitHub's schemas name that a client relies on, checked; any other format is only named. */
const CHECKED: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  email: /^[^@\s]+@[^@\s]+$/,
};

/** Teaches `ajv` every format that `schemas` name. */
export function addFormats(ajv: Ajv, schemas: unknown): void {
  for (const format of formatsIn(schemas)) ajv.addFormat(format, CHECKED[format] ?? true);
}

function formatsIn(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => formatsIn(n, into));
  else if (node && typeof node === "object") {
    const format = (node as { format?: unknown }).format;
    if (typeof format === "string") into.add(format);
    Object.values(node).forEach((n) => formatsIn(n, into));
  }
  return into;
}
