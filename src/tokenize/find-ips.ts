/**
 * IP addresses, checked by Node's own parser (node:net). IPv4: four numbers to 255, not inside a
 * longer dotted run (an OID, a four-part version with its `v`). IPv6: found from each colon that
 * has a hex digit or a colon on both sides, widened over the address's characters, kept when
 * node:net accepts it with at least three groups written, so `::1`, `a::b`, `fe80::1` and a clock's `10:22:33`
 * are left alone. The loopback and unspecified addresses (127.0.0.0/8, 0.0.0.0, ::1, and their
 * IPv4-mapped forms) name no host but the machine itself: they are left as they are.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Finder, Found } from './found.js';

function colonsIn(text: string): number {
  let colons = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 58) colons++;
  return colons;
}

/** A run of digits and dots that is four groups of one to three digits. */
const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const HEX_GROUP = /[0-9A-Fa-f]+/g;
/** IPv6 groups written, below which a match is more likely a clock, a C++ scope or a loopback. */
const IPV6_MIN_GROUPS = 3;
/** The longest IPv6 address written out (`ffff:...:255.255.255.255`, 45), and a zone id beyond it is not looked for. */
const IPV6_MAX_CHARS = 45;

/** Addresses of no one: IPv4 loopback and unspecified, alone or mapped into IPv6. */
const SELF_V4 = /^(?:127\.|0\.0\.0\.0$)/;
const SELF_V6 = /^(?:::1?|::ffff:(?:127\.\d+\.\d+\.\d+|0\.0\.0\.0))$/i;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isWordChar = (c: number) => isHex(c) || (c >= 71 && c <= 90) || (c >= 103 && c <= 122) || c === 95;
/** What an IPv6 address is written with: hex digits, colons, and the dots of an IPv4 tail. */
const isV6Char = (c: number) => isHex(c) || c === 58 || c === 46;

/**
 * Each IPv4 candidate: from each dot with a digit on both sides, the run of digits and dots around
 * it, when it is four groups of one to three digits standing alone. A scan of the dots, not a
 * regular expression tried at every digit of a text that is mostly digits.
 */
function findV4(text: string, label: string, found: Found[]): void {
  let dot = text.indexOf('.');
  while (dot !== -1) {
    if (!isDigit(text.charCodeAt(dot - 1)) || !isDigit(text.charCodeAt(dot + 1))) {
      dot = text.indexOf('.', dot + 1);
      continue;
    }
    let start = dot;
    while (start > 0 && (isDigit(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === 46)) start--;
    let end = dot + 1;
    while (end < text.length && (isDigit(text.charCodeAt(end)) || text.charCodeAt(end) === 46)) end++;
    const candidate = text.slice(start, end);
    if (
      IPV4.test(candidate) &&
      !isWordChar(text.charCodeAt(start - 1)) &&
      !isWordChar(text.charCodeAt(end)) &&
      isIPv4(candidate)
    ) {
      if (!SELF_V4.test(candidate)) found.push({ start, end, label, value: candidate });
    }
    dot = text.indexOf('.', end);
  }
}

export function ipFinder(label: string): Finder {
  return (text, found) => {
    findV4(text, label, found);
    let colon = text.indexOf(':');
    while (colon !== -1) {
      const before = text.charCodeAt(colon - 1);
      const after = text.charCodeAt(colon + 1);
      if (!((isHex(before) || before === 58) && (isHex(after) || after === 58))) {
        colon = text.indexOf(':', colon + 1);
        continue;
      }
      let start = colon;
      while (start > 0 && colon - start < IPV6_MAX_CHARS && isV6Char(text.charCodeAt(start - 1)) && text[start - 1] !== '.')
        start--;
      let end = colon + 1;
      while (end < text.length && end - start < IPV6_MAX_CHARS && isV6Char(text.charCodeAt(end))) end++;
      while (end > colon + 1 && text[end - 1] === '.') end--;
      const candidate = text.slice(start, end);
      // Three groups or more take three colons or more (two with `::` take three); a clock has two.
      if (colonsIn(candidate) < IPV6_MIN_GROUPS) {
        colon = text.indexOf(':', Math.max(end, colon + 1));
        continue;
      }
      const alone = !isWordChar(text.charCodeAt(start - 1)) && !isWordChar(text.charCodeAt(end)) && text[end] !== ':';
      if (
        alone &&
        (candidate.match(HEX_GROUP)?.length ?? 0) >= IPV6_MIN_GROUPS &&
        isIPv6(candidate) &&
        !SELF_V6.test(candidate)
      ) {
        found.push({ start, end, label, value: candidate });
      }
      colon = text.indexOf(':', Math.max(end, colon + 1));
    }
  };
}
