import { createHash } from "node:crypto";

/** The id git gives an object of this type and content: SHA-1 of `<type> <size>\0` + content; no git needed. */
export function gitObjectId(type: string, bytes: Uint8Array): string {
  return createHash("sha1").update(`${type} ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The id git gives these bytes as a blob (`git hash-object`). */
export function gitBlobId(bytes: Uint8Array): string {
  return gitObjectId("blob", bytes);
}
