/**
 * The name lookup a fetch's connection uses: the name is resolved, every address it resolves to
 * is checked, and the connection goes to a checked address, in one step. A name that answers a
 * public address to a check and a private one to the connection (DNS rebinding) has no second
 * answer to give: there is one lookup, and the socket connects to what it returned.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { CodemodeError } from '../support/errors.js';
import { privateKindOf, type PrivateKind } from './private-address.js';

/** Resolves a host name to its addresses (Node's resolver by default; tests give their own). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const SYSTEM_RESOLVER: Resolver = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

/** A host that is, or resolves to, an address its origin may not reach. */
export class PrivateAddressError extends CodemodeError {
  override readonly name = 'PrivateAddressError';
  readonly code = 'FETCH_PRIVATE';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: PrivateKind,
  ) {
    super(host === address ? `${address} is a ${kind} address` : `${host} resolves to ${address}, a ${kind} address`);
  }
}

/** The address itself refused, for a URL whose host is an IP address (no lookup happens then). */
export function checkLiteralAddress(host: string): void {
  const kind = privateKindOf(host);
  if (kind !== null) throw new PrivateAddressError(host, host, kind);
}

/**
 * A `lookup` for http.request: resolves with `resolve`, and refuses the whole name when any of its
 * addresses is private, unless `allowPrivate`: a name with one private address among public ones
 * is as good as private, since which one a connection takes is not ours to choose.
 */
export function checkedLookup(allowPrivate: boolean, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (!allowPrivate) {
          for (const { address } of addresses) {
            const kind = privateKindOf(address);
            if (kind !== null) return callback(new PrivateAddressError(hostname, address, kind), '', 0);
          }
        }
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((entry) => family === 0 || entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '', 0);
        }
        if (options.all === true) callback(null, [...usable]);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
