import { createHash } from "node:crypto";

/** The id git gives these bytes as a blob (`git hash-object`): SHA-1 of `blob <size>\0` + content; no git needed. */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}
