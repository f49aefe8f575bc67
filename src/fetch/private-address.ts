/**
 * Which IP addresses a fetch may not reach unless its origin says `allowPrivate`: this machine,
 * private and shared networks, link-local (where cloud metadata services answer), and the
 * addresses no host should have. IPv6 forms that carry an IPv4 address (mapped, compatible,
 * NAT64, 6to4) are judged by the IPv4 address inside. Pure.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** What kind of address it is, as a refusal names it. */
export type PrivateKind =
  'loopback' | 'private' | 'shared' | 'link-local' | 'cloud metadata' | 'unspecified' | 'reserved' | 'multicast';

/** [first address, prefix length, kind], IPv4; the first that contains an address names it. */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, PrivateKind]> = [
  ['169.254.169.254', 32, 'cloud metadata'],
  ['100.100.100.200', 32, 'cloud metadata'],
  ['192.0.0.192', 32, 'cloud metadata'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** [first address, prefix length, kind], IPv6 (the IPv4-carrying forms are handled apart). */
const IPV6_RANGES: ReadonlyArray<readonly [string, number, PrivateKind]> = [
  ['fd00:ec2::254', 128, 'cloud metadata'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
];

/** The kind of a private address, or null for one on the public internet. Throws for text that is no IP address. */
export function privateKindOf(address: string): PrivateKind | null {
  if (isIPv4(address))
    return kindIn(
      IPV4_RANGES.map(([base, bits, kind]) => [ipv4Bits(base), bits, kind]),
      ipv4Bits(address),
      32,
    );
  if (!isIPv6(address)) throw new TypeError(`${address} is not an IP address`);
  const bits = ipv6Bits(address);
  const carried = carriedIpv4(bits);
  if (carried !== null) return privateKindOf(carried);
  return kindIn(
    IPV6_RANGES.map(([base, prefix, kind]) => [ipv6Bits(base), prefix, kind]),
    bits,
    128,
  );
}

function kindIn(
  ranges: ReadonlyArray<readonly [bigint, number, PrivateKind]>,
  address: bigint,
  width: number,
): PrivateKind | null {
  for (const [base, prefix, kind] of ranges) {
    const shift = BigInt(width - prefix);
    if (address >> shift === base >> shift) return kind;
  }
  return null;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((bits, octet) => (bits << 8n) | BigInt(Number(octet)), 0n);
}

/** An IPv6 address's 128 bits (a zone id, `%eth0`, dropped). */
function ipv6Bits(address: string): bigint {
  let text = address.replace(/%.*$/, '');
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) as its two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const v4 = ipv4Bits(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), -compatible (::/96), NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function carriedIpv4(bits: bigint): string | null {
  const top96 = bits >> 32n;
  let v4: bigint | null = null;
  if (top96 === 0xffffn || top96 === 0x64ff9b0000000000000000n) v4 = bits & 0xffffffffn;
  // ::/96 but not :: or ::1, which have kinds of their own.
  else if (top96 === 0n && bits > 1n) v4 = bits & 0xffffffffn;
  else if (bits >> 112n === 0x2002n) v4 = (bits >> 80n) & 0xffffffffn;
  if (v4 === null) return null;
  return [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join('.');
}
