/**
 * A remote entry's `oauth` object, checked as a whole and expanded: which fields go together, where
 * a secret may come from, and the private key file's path taken from the config file's directory.
 */
import { isAbsolute, resolve } from 'node:path';
import { isClientMetadataUrl } from './client-metadata-url.js';
import type { ConfigError, ConfigPath } from './config-error.js';
import { formatPath } from '../support/value-path.js';
import type { OAuthEntry } from './entry-schemas.js';
import type { OAuthOptions } from './types.js';

export interface OAuthContext {
  /** The path of the `oauth` object, for messages. */
  readonly path: ConfigPath;
  /** `${VAR}` expansion of one string, at a path taken from the entry (`['oauth', 'clientSecret']`). */
  readonly expand: (text: string, where: ConfigPath) => string;
  readonly invalid: (detail: string) => ConfigError;
  /** A relative privateKeyFile is taken from here; null leaves it relative to the working directory. */
  readonly baseDir: string | null;
}

const VARIABLE_REFERENCE = /\$\{[^}]*\}/;

export function readOAuth(entry: OAuthEntry, context: OAuthContext): OAuthOptions {
  const at = (key: string): string => formatPath([...context.path, key]);
  const grant = entry.grant ?? 'authorization_code';
  const expandAt = (key: keyof OAuthEntry): string | undefined => {
    const value = entry[key];
    return typeof value === 'string' ? context.expand(value, ['oauth', key]) : undefined;
  };
  const clientId = expandAt('clientId');
  const clientSecret = expandAt('clientSecret');
  const privateKeyFile = expandAt('privateKeyFile');
  if (clientSecret !== undefined && clientId === undefined) {
    throw context.invalid(`${at('clientSecret')} needs ${at('clientId')}: a secret belongs to a pre-registered client`);
  }
  if (clientId !== undefined && isClientMetadataUrl(clientId) && clientSecret !== undefined) {
    throw context.invalid(
      `${at('clientId')} is a Client ID Metadata Document URL, which has no secret; leave out ${at('clientSecret')}`,
    );
  }
  if (grant === 'client_credentials') {
    if (clientId === undefined) throw context.invalid(`${at('grant')} is "client_credentials", which needs ${at('clientId')}`);
    if ((clientSecret === undefined) === (privateKeyFile === undefined)) {
      throw context.invalid(
        `${at('grant')} is "client_credentials", which needs either ${at('clientSecret')} or ${at('privateKeyFile')} (a PEM private key for private_key_jwt), not both`,
      );
    }
    if (entry.redirectPort !== undefined)
      throw context.invalid(`${at('redirectPort')} is for a browser sign-in; "client_credentials" has none, so leave it out`);
  } else if (privateKeyFile !== undefined) {
    throw context.invalid(
      `${at('privateKeyFile')} signs client_credentials requests; set ${at('grant')} to "client_credentials", or leave it out`,
    );
  }
  const keyFile =
    privateKeyFile === undefined || context.baseDir === null || isAbsolute(privateKeyFile)
      ? privateKeyFile
      : resolve(context.baseDir, privateKeyFile);
  return {
    grant,
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(entry.scope === undefined ? {} : { scope: context.expand(entry.scope, ['oauth', 'scope']) }),
    ...(entry.redirectPort === undefined ? {} : { redirectPort: entry.redirectPort }),
    ...(keyFile === undefined ? {} : { privateKeyFile: keyFile }),
    secretWrittenInline: entry.clientSecret !== undefined && !VARIABLE_REFERENCE.test(entry.clientSecret),
  };
}
