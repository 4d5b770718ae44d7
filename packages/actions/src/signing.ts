import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { canonicalJson } from "@pablo/kernel";

/** A fresh Ed25519 key pair as PEM: PKCS#8 private key, SPKI public key, and the public key's ID. */
export function generateSigningKey(): { privateKeyPem: string; publicKeyPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** A trusted public key, parsed once. */
export interface TrustedKey {
  readonly keyId: string;
  readonly key: KeyObject;
}

/** Parses an Ed25519 public key PEM; throws on anything else (a host configuration fault). */
export function trustedKey(publicKeyPem: string): TrustedKey {
  const key = createPublicKey(publicKeyPem);
  if (key.asymmetricKeyType !== "ed25519") throw new TypeError("a trusted key must be an Ed25519 public key");
  return { keyId: keyIdOf(key), key };
}

/** The first 16 hex digits of SHA-256 over the key's SPKI encoding. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("hex").slice(0, 16);
}

/**
 * The bytes a signature covers: the action exactly as parsed (every field but `signature`,
 * including each script's SHA-256), as JSON with sorted keys, under a format tag so that a
 * signature over some other kind of document can never be replayed as an action's.
 */
export function signedPayload(action: Readonly<Record<string, unknown>>): Buffer {
  const { signature: _signature, ...rest } = action;
  return Buffer.from(canonicalJson({ format: "pablo-action/1", action: rest }), "utf8");
}

/** Signs an action (with its `script.sha256` already set); returns the `signature` field's value. */
export function signAction(
  action: Readonly<Record<string, unknown>>,
  privateKeyPem: string,
): { key_id: string; value: string } {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== "ed25519")
    throw new TypeError("the signing key must be an Ed25519 private key");
  const value = sign(null, signedPayload(action), privateKey).toString("base64");
  return { key_id: keyIdOf(createPublicKey(privateKey)), value };
}

export type SignatureCheck =
  | { readonly ok: true; readonly keyId: string }
  | { readonly ok: false; readonly reason: "unsigned" | "untrusted-key" | "invalid" };

/** Verifies an action's signature against the trusted keys. */
export function verifyAction(
  action: Readonly<Record<string, unknown>>,
  keys: readonly TrustedKey[],
): SignatureCheck {
  const signature = action["signature"] as { key_id?: unknown; value?: unknown } | undefined;
  if (!signature || typeof signature.value !== "string" || typeof signature.key_id !== "string") {
    return { ok: false, reason: "unsigned" };
  }
  const trusted = keys.find((k) => k.keyId === signature.key_id);
  if (!trusted) return { ok: false, reason: "untrusted-key" };
  const bytes = Buffer.from(signature.value, "base64");
  const good = bytes.length === 64 && verify(null, signedPayload(action), trusted.key, bytes);
  return good ? { ok: true, keyId: trusted.keyId } : { ok: false, reason: "invalid" };
}
