/**
 * Email addresses: each `@` is widened to the local part before it and the domain after it (a
 * scan bounded by their lengths, so a megabyte without spaces costs one pass), then checked as
 * validator's isEmail checks an ASCII address: the local part's dots, the domain's labels and
 * lengths, a TLD of letters. Calling isEmail itself cost a third of the budget of a megabyte of
 * rows (bench/ANALYSIS.md, "Figures from the code's comments"); email-check.test.ts holds the two
 * to the same answers.
 */
import type { Finder } from './found.js';

/** RFC 5321's longest local part; a longer run before `@` is not an address's. */
const LOCAL_MAX_CHARS = 64;
/** RFC 5321's longest address, and RFC 1035's longest domain name and label. */
const ADDRESS_MAX_CHARS = 254;
const DOMAIN_MAX_CHARS = 253;
const LABEL_MAX_CHARS = 63;

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** The local part's characters as addresses in data use them: letters, digits, `.`, `_`, `%`, `+`, `-`. */
const isLocalChar = (c: number) => isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
const isDomainChar = (c: number) => isAlnum(c) || c === 46 || c === 45;
const DOT = 46;
const DASH = 45;
/** A top-level domain: 2 to 63 letters, or an internationalized one in its ASCII form (`xn--p1ai`): `xn` and 2 to 61 letters, digits or dashes. */
const TLD_MIN_CHARS = 2;
const IDN_TLD_MAX_CHARS = 63;

function isTld(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < TLD_MIN_CHARS || length > LABEL_MAX_CHARS) return false;
  let letters = true;
  for (let i = start; i < end && letters; i++) letters = isLetter(text.charCodeAt(i));
  if (letters) return true;
  if (
    length < TLD_MIN_CHARS + 2 ||
    length > IDN_TLD_MAX_CHARS ||
    text.charCodeAt(start) !== 120 ||
    text.charCodeAt(start + 1) !== 110
  )
    return false;
  for (let i = start + 2; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!isAlnum(c) && c !== DASH) return false;
  }
  return true;
}

/**
 * Whether `text` from `start` to `end`, its `@` at `at`, is an address validator's isEmail takes
 * (of the characters above), read in place: a scan's candidates are checked without a copy.
 */
function isEmailAt(text: string, start: number, at: number, end: number): boolean {
  const local = at - start;
  const domain = end - at - 1;
  if (local === 0 || local > LOCAL_MAX_CHARS || local + 1 + domain > ADDRESS_MAX_CHARS || domain > DOMAIN_MAX_CHARS) return false;
  if (text.charCodeAt(start) === DOT || text.charCodeAt(at - 1) === DOT) return false;
  for (let i = start + 1; i < at; i++) if (text.charCodeAt(i) === DOT && text.charCodeAt(i - 1) === DOT) return false;
  // Each label non-empty, at most 63, with no dash at either end; at least two; the last a TLD.
  let label = at + 1;
  let labels = 0;
  for (let i = label; i <= end; i++) {
    if (i < end && text.charCodeAt(i) !== DOT) continue;
    const length = i - label;
    if (length === 0 || length > LABEL_MAX_CHARS || text.charCodeAt(label) === DASH || text.charCodeAt(i - 1) === DASH)
      return false;
    labels++;
    if (i === end) return labels >= 2 && isTld(text, label, end);
    label = i + 1;
  }
  return false;
}

/** Whether a local part and a domain (each of the characters above) make an address validator's isEmail takes. */
export function isEmailAddress(local: string, domain: string): boolean {
  const address = `${local}@${domain}`;
  return isEmailAt(address, 0, local.length, address.length);
}

export function emailFinder(label: string): Finder {
  return (text, found, escapeEnds) => {
    let at = text.indexOf('@');
    while (at !== -1) {
      let start = at;
      while (start > 0 && at - start < LOCAL_MAX_CHARS && isLocalChar(text.charCodeAt(start - 1)) && !escapeEnds(text, start - 1))
        start--;
      let end = at + 1;
      while (end < text.length && end - at <= DOMAIN_MAX_CHARS && isDomainChar(text.charCodeAt(end))) end++;
      // A sentence's full stop or a dash after the address is not part of it.
      while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
      // A local part's leading dots belong to what came before (`...ada@x.org`).
      while (start < at && text[start] === '.') start++;
      if (isEmailAt(text, start, at, end)) {
        found.push({ start, end, label, value: text.slice(start, end) });
        at = text.indexOf('@', end);
      } else {
        at = text.indexOf('@', at + 1);
      }
    }
  };
}
