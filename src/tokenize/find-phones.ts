/**
 * Phone numbers. Written with `+` and a country code, a number always counts: its calling code
 * must be one of libphonenumber-js's numbering plans and its national part a length that plan
 * allows (the documented `Metadata` API, read once into a table, so a candidate costs a lookup,
 * not a parse). With a `phoneRegion`, numbers in that region's national format count too, when
 * libphonenumber-js finds them valid there (a parse each: national formats are ambiguous, and
 * that check is the strict one); bare digits only as a value of their own (`"4155550143"`), not
 * inside a text or as a JSON number (an invoice number). Dates, times and decimals never count.
 */
import type * as PhoneNumbers from 'libphonenumber-js/core';
import type { Found, Finder } from './found.js';
import type { Libraries } from './libraries.js';

/** E.164: at most 15 digits, the country code's included. */
const E164_MAX_DIGITS = 15;
/** Fewer digits than this is an extension, a year or an amount, in any plan worth finding. */
const PHONE_MIN_DIGITS = 7;

/** `+`, then digits with the separators people write between them; the edges are checked after. */
const INTERNATIONAL = /\+\d[\d ().\-\u00A0]{5,24}\d/g;
/** A run of digits and separators, possibly opening with a parenthesised area code. */
const NATIONAL = /\(?\d[\d ().\-\u00A0]{5,22}\d/g;
/** `(0)` after the country code: the trunk prefix some countries write, dialled only at home. */
const TRUNK_IN_PARENTHESES = /\(0\)/;
/** Separators doubled, or a parenthesis that doesn't close: not a number as people write one. */
const BAD_PUNCTUATION = /[ .\-\u00A0]{2}|\([^)]*$|^[^(]*\)/;
const DATE_OR_TIME = /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$|^\d{1,2}:\d{2}/;
const DECIMAL = /^\d+[.,]\d{1,2}$/;
/** Four groups of digits joined by dots: an IPv4 address (the ip detector's), a version or an OID, never a number people dial. */
const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
/** Figures rather than a number: a single digit after a dot (`61.5`), or dots and dashes mixed (`12.50-13.75`). */
const FIGURES = /\.\d(?!\d)|\..*-|-.*\./;
const NOT_DIGIT = /\D/g;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordChar = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** Before a number: a letter, digit or `_`, or a mark that joins it to something (`+`, `@`, `#`, `/`, `\`, `.`, `,`, `:`, `-`). */
const JOINS_BEFORE = new Set([43, 64, 35, 47, 92, 46, 44, 58, 45]);
/** After a number, joining it to what follows when a digit comes next: `.`, `,`, `:`, `/`, `-`. */
const JOINS_AFTER = new Set([46, 44, 58, 47, 45]);

/** Whether the stretch is a number of its own, not part of an id (`ORD-2026-100001`), a path, a decimal or a word. */
function standsAlone(text: string, start: number, end: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (isWordChar(before) || JOINS_BEFORE.has(before)) return false;
  const after = text.charCodeAt(end);
  if (isWordChar(after) || after === 64) return false;
  return !(JOINS_AFTER.has(after) && isDigit(text.charCodeAt(end + 1)));
}

function countDigits(text: string, start: number, end: number): number {
  let digits = 0;
  for (let i = start; i < end; i++) if (isDigit(text.charCodeAt(i))) digits++;
  return digits;
}

/** Calling code → the national lengths its plans allow (several plans share +1, +7, +44, ...). */
function callingCodeLengths(libraries: Libraries): Map<string, Set<number>> {
  const { Metadata, getCountries, getCountryCallingCode } = libraries.phoneNumbers;
  const metadata = new Metadata(libraries.phoneMetadata);
  const table = new Map<string, Set<number>>();
  for (const country of getCountries(libraries.phoneMetadata)) {
    metadata.selectNumberingPlan(country);
    const code = getCountryCallingCode(country, libraries.phoneMetadata);
    const lengths = table.get(code) ?? new Set<number>();
    for (const length of metadata.numberingPlan?.possibleLengths() ?? []) lengths.add(length);
    table.set(code, lengths);
  }
  return table;
}

function isInternationalNumber(candidate: string, plans: Map<string, Set<number>>): boolean {
  const digits = (TRUNK_IN_PARENTHESES.test(candidate) ? candidate.replace(TRUNK_IN_PARENTHESES, '') : candidate).replace(
    NOT_DIGIT,
    '',
  );
  if (digits.length < PHONE_MIN_DIGITS || digits.length > E164_MAX_DIGITS) return false;
  // Calling codes are prefix-free: at most one of the three lengths names a plan.
  for (let k = 1; k <= 3; k++) {
    const lengths = plans.get(digits.slice(0, k));
    if (lengths !== undefined) return lengths.has(digits.length - k);
  }
  return false;
}

const isSeparator = (c: number) => c === 32 || c === 40 || c === 41 || c === 46 || c === 45 || c === 0xa0;

/**
 * Where a run's groups of digits start (a digit or `(` after a separator; with `fromEitherEnd`,
 * else only at 0) and end (after a digit followed by a separator, or at the run's end), in order.
 */
function groupsOf(run: string, fromEitherEnd: boolean): { starts: number[]; ends: number[] } {
  const starts = [0];
  const ends: number[] = [];
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (isDigit(c) && (i + 1 === run.length || isSeparator(run.charCodeAt(i + 1)))) ends.push(i + 1);
    if (fromEitherEnd && i > 0 && (isDigit(c) || c === 40) && isSeparator(run.charCodeAt(i - 1))) starts.push(i);
  }
  return { starts, ends };
}
const OPENS_NUMBER = /^[\d(+]/;
/** A run of one group has no shorter part to try. */
const HAS_SEPARATOR = /[ ().\-\u00A0]/;

/**
 * Each match, or else the longest part of it that holds a number: a run such as `2024-12-07
 * 415-555-0143` or `+1 415 555 0143 2024` is tried shorter, group by group, from either end
 * (`fromEitherEnd`) or only at its end (an international number starts at its `+`).
 */
function pushMatches(
  text: string,
  pattern: RegExp,
  accept: (candidate: string, start: number, end: number) => boolean,
  fromEitherEnd: boolean,
  label: string,
  found: Found[],
  taken: readonly Found[] = [],
) {
  let next = 0;
  const tryPart = (start: number, end: number): boolean => {
    const digits = countDigits(text, start, end);
    if (digits < PHONE_MIN_DIGITS || digits > E164_MAX_DIGITS + 1 || !standsAlone(text, start, end)) return false;
    const candidate = text.slice(start, end);
    if (!OPENS_NUMBER.test(candidate) || BAD_PUNCTUATION.test(candidate) || !accept(candidate, start, end)) return false;
    found.push({ start, end, label, value: candidate });
    pattern.lastIndex = end;
    return true;
  };
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const at = match.index;
    const run = match[0];
    // A run that starts inside an international number found already (its digits after the `+`) goes on after it.
    while (next < taken.length && taken[next]!.end <= at) next++;
    if (next < taken.length && taken[next]!.start <= at) {
      pattern.lastIndex = taken[next]!.end;
      continue;
    }
    if (tryPart(at, at + run.length) || !HAS_SEPARATOR.test(run) || countDigits(text, at, at + run.length) < PHONE_MIN_DIGITS)
      continue;
    const { starts, ends } = groupsOf(run, fromEitherEnd);
    search: for (const from of starts) {
      for (let e = ends.length - 1; e >= 0; e--) {
        const to = ends[e]!;
        if (to <= from) break;
        if ((from !== 0 || to !== run.length) && tryPart(at + from, at + to)) break search;
      }
    }
  }
}

export function phoneFinder(libraries: Libraries, label: string, region: string | null): Finder {
  const plans = callingCodeLengths(libraries);
  const international = new RegExp(INTERNATIONAL);
  const isInternational = (candidate: string) => isInternationalNumber(candidate, plans);
  if (region === null) return (text, found) => pushMatches(text, international, isInternational, false, label, found);
  const { isValidPhoneNumber } = libraries.phoneNumbers;
  // settings.tokenize.phoneRegion was checked against the same plans (src/config/tokenize-setting.ts).
  const country = region as PhoneNumbers.CountryCode;
  const national = new RegExp(NATIONAL);
  const isNational = (text: string, candidate: string, start: number, end: number) => {
    const digits = candidate.replace(NOT_DIGIT, '').length;
    if (digits < PHONE_MIN_DIGITS || digits > E164_MAX_DIGITS) return false;
    if (DATE_OR_TIME.test(candidate) || DECIMAL.test(candidate) || FIGURES.test(candidate) || DOTTED_QUAD.test(candidate))
      return false;
    // Bare digits are an id, an invoice or a count as often as a number: only a value of their own counts.
    if (digits === candidate.length && !isWholeValue(text, start, end)) return false;
    return isValidPhoneNumber(candidate, country, libraries.phoneMetadata);
  };
  return (text, found) => {
    const first = found.length;
    pushMatches(text, international, isInternational, false, label, found);
    const internationals = found.slice(first);
    // National candidates come in order: a cursor passes the international finds once.
    let next = 0;
    const outside = (start: number, end: number) => {
      while (next < internationals.length && internationals[next]!.end <= start) next++;
      return next === internationals.length || internationals[next]!.start >= end;
    };
    pushMatches(
      text,
      national,
      (candidate, start, end) => outside(start, end) && isNational(text, candidate, start, end),
      true,
      label,
      found,
      internationals,
    );
  };
}

/** The stretch is the whole text, or a whole JSON string in it (`"4155550143"`). */
function isWholeValue(text: string, start: number, end: number): boolean {
  return (start === 0 && end === text.length) || (text[start - 1] === '"' && text[end] === '"');
}
