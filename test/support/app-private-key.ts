import crypto from "node:crypto";

/** A new private key of the shape GitHub issues for an app (RSA, PKCS#1 PEM), for a test's APP_ID and PRIVATE_KEY. */
export function appPrivateKey(): string {
  return crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
}
