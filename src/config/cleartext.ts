/**
 * Bearer tokens go only over TLS (RFC 6750 §5.3): a remote entry whose URL is plain `http://` to
 * another machine may not carry a credential unless it says so (`allowInsecureHttp`). Loopback
 * addresses never leave the machine, so they are exempt.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Header names that carry a credential: sent in the clear, they give the server's access away. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|auth|token|secret|key|password|session/i;

/** Whether `url` is plain http to a host other than this machine (127/8, ::1, localhost). */
export function isCleartextToAnotherHost(url: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return false;
  const family = isIP(host);
  return family === 0 || !LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** The entry's headers that carry a credential, by name. */
export function credentialHeaders(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((name) => CREDENTIAL_HEADER.test(name));
}
