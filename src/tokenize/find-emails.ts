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
/** The local part's characters as addresses in data use them: letters, digits, `.`, `_`, `%`, `+`, `-`. */
const isLocalChar = (c: number) => isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
const isDomainChar = (c: number) => isAlnum(c) || c === 46 || c === 45;
/** A top-level domain: letters, or an internationalized one in its ASCII form (`xn--p1ai`). */
const TLD = /^(?:[A-Za-z]{2,63}|xn[A-Za-z0-9-]{2,61})$/;

/** Whether a local part and a domain (each of the characters above) make an address validator's isEmail takes. */
export function isEmailAddress(local: string, domain: string): boolean {
  if (local === '' || local.length > LOCAL_MAX_CHARS || local.length + 1 + domain.length > ADDRESS_MAX_CHARS) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  if (domain.length > DOMAIN_MAX_CHARS) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !TLD.test(labels[labels.length - 1]!)) return false;
  return labels.every(
    (label) => label !== '' && label.length <= LABEL_MAX_CHARS && !label.startsWith('-') && !label.endsWith('-'),
  );
}

export function emailFinder(label: string): Finder {
  return (text, found) => {
    let at = text.indexOf('@');
    while (at !== -1) {
      let start = at;
      while (start > 0 && at - start < LOCAL_MAX_CHARS && isLocalChar(text.charCodeAt(start - 1))) start--;
      let end = at + 1;
      while (end < text.length && end - at <= DOMAIN_MAX_CHARS && isDomainChar(text.charCodeAt(end))) end++;
      // A sentence's full stop or a dash after the address is not part of it.
      while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
      // A local part's leading dots belong to what came before (`...ada@x.org`).
      while (start < at && text[start] === '.') start++;
      if (isEmailAddress(text.slice(start, at), text.slice(at + 1, end))) {
        found.push({ start, end, label, value: text.slice(start, end) });
        at = text.indexOf('@', end);
      } else {
        at = text.indexOf('@', at + 1);
      }
    }
  };
}
