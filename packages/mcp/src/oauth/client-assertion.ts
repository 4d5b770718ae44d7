import { randomUUID, sign } from "node:crypto";
import type { AddClientAuthentication } from "@modelcontextprotocol/sdk/client/auth.js";

/** How long a signed client assertion is valid: long enough for one token request. */
const ASSERTION_LIFETIME_S = 120;

/**
 * Client authentication by a signed JWT (`private_key_jwt`, RFC 7523 section 2.2): the client ID
 * is issuer and subject, the authorization server's issuer (else the token endpoint) the audience.
 * The key is a PKCS#8 PEM from a credential; it never leaves this process.
 */
export function privateKeyJwtAuthentication(
  clientId: string,
  privateKeyPem: string,
  algorithm: "ES256" | "RS256",
): AddClientAuthentication {
  return (_headers, params, url, metadata) => {
    const now = Math.floor(Date.now() / 1000);
    const audience = metadata?.issuer ?? String(url);
    const assertion = signJwt(
      { alg: algorithm, typ: "JWT" },
      {
        iss: clientId,
        sub: clientId,
        aud: audience,
        iat: now,
        exp: now + ASSERTION_LIFETIME_S,
        jti: randomUUID(),
      },
      privateKeyPem,
      algorithm,
    );
    params.set("client_id", clientId);
    params.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    params.set("client_assertion", assertion);
  };
}

function signJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  pem: string,
  algorithm: "ES256" | "RS256",
): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${encode(header)}.${encode(payload)}`;
  // JWS wants the raw r||s form of an ECDSA signature, not DER.
  const signature =
    algorithm === "ES256"
      ? sign("sha256", Buffer.from(input), { key: pem, dsaEncoding: "ieee-p1363" })
      : sign("sha256", Buffer.from(input), pem);
  return `${input}.${signature.toString("base64url")}`;
}
