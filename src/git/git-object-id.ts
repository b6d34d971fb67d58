import { createHash, type Hash } from "node:crypto";

/**
 * The hash git names objects with and checks packs and their indexes by: SHA-1, as every repository MAGIS reads uses
 * (one that uses SHA-256 is refused when it is fetched, see fetchShallowPack). The one place that says so.
 */
export function gitHash(): Hash {
  return createHash("sha1");
}

/** The id git gives an object of this type and content: SHA-1 of `<type> <size>\0` + content; no git needed. */
export function gitObjectId(type: string, bytes: Uint8Array): string {
  return gitHash().update(`${type} ${bytes.length}\0`).update(bytes).digest("hex");
}

/** `data`, once checked to be the object `oid` of this type; throws when its id is another (damaged packs). */
export function checkedObject(oid: string, type: string, data: Buffer): Buffer {
  if (gitObjectId(type, data) !== oid) throw new Error(`the ${type} read as ${oid} is not that object: the clone's packs are damaged`);
  return data;
}

/** The id git gives these bytes as a blob (`git hash-object`). */
export function gitBlobId(bytes: Uint8Array): string {
  return gitObjectId("blob", bytes);
}
