/**
 * The private key of a `private_key_jwt` client, read from the file the config names, and the JWS
 * algorithm its type implies, so the config needs no algorithm of its own.
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface ClientKey {
  /** As a JWK: the SDK's signer (jose's importJWK) takes every key type this way, PKCS#1 and Ed25519 included. */
  readonly jwk: JsonWebKey;
  readonly algorithm: string;
}

const CURVE_ALGORITHMS: Readonly<Record<string, string>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** Throws an Error saying what is wrong with the file; the message never quotes the key. */
export function readClientKey(file: string): ClientKey {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `can't read its oauth.privateKeyFile ${JSON.stringify(file)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error(`its oauth.privateKeyFile ${JSON.stringify(file)} holds no PEM private key`);
  }
  return { jwk: key.export({ format: 'jwk' }), algorithm: algorithmOf(key, file) };
}

function algorithmOf(key: KeyObject, file: string): string {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ed25519':
      return 'EdDSA';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
      const algorithm = CURVE_ALGORITHMS[curve];
      if (algorithm !== undefined) return algorithm;
      throw new Error(
        `its oauth.privateKeyFile ${JSON.stringify(file)} is an EC key on curve ${curve}; use P-256, P-384 or P-521`,
      );
    }
    default:
      throw new Error(
        `its oauth.privateKeyFile ${JSON.stringify(file)} is a ${key.asymmetricKeyType ?? 'unknown'} key; use RSA, EC or Ed25519`,
      );
  }
}
