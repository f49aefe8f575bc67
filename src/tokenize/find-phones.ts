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
import type { EscapeEnds, Found, Finder } from './found.js';
import type { Libraries } from './libraries.js';

/** E.164: at most 15 digits, the country code's included. */
const E164_MAX_DIGITS = 15;
/** Fewer digits than this is an extension, a year or an amount, in any plan worth finding. */
const PHONE_MIN_DIGITS = 7;

/**
 * After `+` and a digit, 5 to 24 digits and the separators people write between them, then a
 * digit: `\+\d[\d ().\-\u00A0]{5,24}\d`, found by nextInternational; the edges are checked after.
 */
const INTERNATIONAL_MIDDLE = { min: 5, max: 24 };
/** A run of digits and separators, possibly opening with a parenthesised area code. */
const NATIONAL = /\(?\d[\d ().\-\u00A0]{5,22}\d/g;
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
function standsAlone(text: string, start: number, end: number, escapeEnds: EscapeEnds): boolean {
  const before = text.charCodeAt(start - 1);
  if ((isWordChar(before) || JOINS_BEFORE.has(before)) && !escapeEnds(text, start - 1)) return false;
  const after = text.charCodeAt(end);
  if (isWordChar(after) || after === 64) return false;
  return !(JOINS_AFTER.has(after) && isDigit(text.charCodeAt(end + 1)));
}

function countDigits(text: string, start: number, end: number): number {
  let digits = 0;
  for (let i = start; i < end; i++) if (isDigit(text.charCodeAt(i))) digits++;
  return digits;
}

/**
 * Calling code (as a number: no code opens with 0, so it names one) → the national lengths its
 * plans allow (several plans share +1, +7, +44, ...).
 */
function callingCodeLengths(libraries: Libraries): Map<number, Set<number>> {
  const { Metadata, getCountries, getCountryCallingCode } = libraries.phoneNumbers;
  const metadata = new Metadata(libraries.phoneMetadata);
  const table = new Map<number, Set<number>>();
  for (const country of getCountries(libraries.phoneMetadata)) {
    metadata.selectNumberingPlan(country);
    const code = Number(getCountryCallingCode(country, libraries.phoneMetadata));
    const lengths = table.get(code) ?? new Set<number>();
    for (const length of metadata.numberingPlan?.possibleLengths() ?? []) lengths.add(length);
    table.set(code, lengths);
  }
  return table;
}

/** The longest calling code, in digits. */
const CALLING_CODE_MAX_DIGITS = 3;

/**
 * Whether the candidate's digits (less the `0` of a first `(0)`, dialled only at home) are a
 * calling code and a national part of a length its plans allow. Read in place, digit by digit.
 */
function isInternationalNumber(candidate: string, plans: Map<number, Set<number>>): boolean {
  const trunk = candidate.indexOf('(0)');
  const trunkZero = trunk === -1 ? -1 : trunk + 1;
  const prefixes = [0, 0, 0];
  let digits = 0;
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate.charCodeAt(i);
    if (!isDigit(c) || i === trunkZero) continue;
    if (digits < CALLING_CODE_MAX_DIGITS) prefixes[digits] = (digits === 0 ? 0 : prefixes[digits - 1]!) * 10 + (c - 48);
    digits++;
  }
  if (digits < PHONE_MIN_DIGITS || digits > E164_MAX_DIGITS) return false;
  // Calling codes are prefix-free: at most one of the three lengths names a plan.
  for (let k = 1; k <= CALLING_CODE_MAX_DIGITS; k++) {
    const lengths = plans.get(prefixes[k - 1]!);
    if (lengths !== undefined) return lengths.has(digits - k);
  }
  return false;
}

/**
 * Separators doubled (` `, `.`, `-`, a no-break space), a `(` that no `)` closes after it, or a `)`
 * before any `(`: not a number as people write one.
 */
function hasBadPunctuation(candidate: string): boolean {
  let firstOpen = -1;
  let lastOpen = -1;
  let firstClose = -1;
  let lastClose = -1;
  let previousSeparator = false;
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate.charCodeAt(i);
    const separator = c === 32 || c === 46 || c === 45 || c === 0xa0;
    if (separator && previousSeparator) return true;
    previousSeparator = separator;
    if (c === 40) {
      if (firstOpen === -1) firstOpen = i;
      lastOpen = i;
    } else if (c === 41) {
      if (firstClose === -1) firstClose = i;
      lastClose = i;
    }
  }
  return (lastOpen !== -1 && lastClose < lastOpen) || (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen));
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
/** Where a run of a number starts and ends (`[start, end)`), the first at or after `from`; undefined when there is none. */
type Matcher = (text: string, from: number) => readonly [start: number, end: number] | undefined;

const isNumberChar = (c: number) => isDigit(c) || isSeparator(c);

/**
 * The first match of `\+\d[\d ().\-\u00A0]{5,24}\d` at or after `from`, as the regular
 * expression's greedy match: from each `+` (found with indexOf, where the expression was tried at
 * every `+` and paid a match object for each), the last digit the middle's bounds allow.
 */
const nextInternational: Matcher = (text, from) => {
  for (let plus = text.indexOf('+', from); plus !== -1; plus = text.indexOf('+', plus + 1)) {
    if (!isDigit(text.charCodeAt(plus + 1))) continue;
    const middle = plus + 2;
    let end = -1;
    for (let i = middle; i <= middle + INTERNATIONAL_MIDDLE.max && i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (!isNumberChar(c)) break;
      if (isDigit(c) && i - middle >= INTERNATIONAL_MIDDLE.min) end = i + 1;
    }
    if (end !== -1) return [plus, end];
  }
  return undefined;
};

/** A global regular expression's matches as a Matcher. */
function matcherOf(pattern: RegExp): Matcher {
  return (text, from) => {
    pattern.lastIndex = from;
    const match = pattern.exec(text);
    return match === null ? undefined : [match.index, match.index + match[0].length];
  };
}

/** A number opens with a digit, `(` or `+`. */
const opensNumber = (c: number) => isDigit(c) || c === 40 || c === 43;
/** A run of one group has no shorter part to try. */
const HAS_SEPARATOR = /[ ().\-\u00A0]/;

/**
 * Each match, or else the longest part of it that holds a number: a run such as `2024-12-07
 * 415-555-0143` or `+1 415 555 0143 2024` is tried shorter, group by group, from either end
 * (`fromEitherEnd`) or only at its end (an international number starts at its `+`).
 */
function pushMatches(
  text: string,
  match: Matcher,
  accept: (candidate: string, start: number, end: number) => boolean,
  fromEitherEnd: boolean,
  label: string,
  found: Found[],
  escapeEnds: EscapeEnds,
  taken: readonly Found[] = [],
) {
  let next = 0;
  /** Where the next match is looked for: past the last run, or past a number found in it. */
  let cursor = 0;
  const tryPart = (start: number, end: number): boolean => {
    const digits = countDigits(text, start, end);
    if (digits < PHONE_MIN_DIGITS || digits > E164_MAX_DIGITS + 1 || !standsAlone(text, start, end, escapeEnds)) return false;
    const candidate = text.slice(start, end);
    if (!opensNumber(text.charCodeAt(start)) || hasBadPunctuation(candidate) || !accept(candidate, start, end)) return false;
    found.push({ start, end, label, value: candidate });
    cursor = end;
    return true;
  };
  for (let span = match(text, cursor); span !== undefined; span = match(text, cursor)) {
    const [at, runEnd] = span;
    cursor = runEnd;
    // A run that starts inside an international number found already (its digits after the `+`) goes on after it.
    while (next < taken.length && taken[next]!.end <= at) next++;
    if (next < taken.length && taken[next]!.start <= at) {
      cursor = taken[next]!.end;
      continue;
    }
    if (tryPart(at, runEnd)) continue;
    const run = text.slice(at, runEnd);
    if (!HAS_SEPARATOR.test(run) || countDigits(text, at, runEnd) < PHONE_MIN_DIGITS) continue;
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
  const international = nextInternational;
  const isInternational = (candidate: string) => isInternationalNumber(candidate, plans);
  if (region === null)
    return (text, found, escapeEnds) => pushMatches(text, international, isInternational, false, label, found, escapeEnds);
  const { isValidPhoneNumber } = libraries.phoneNumbers;
  // settings.tokenize.phoneRegion was checked against the same plans (src/config/tokenize-setting.ts).
  const country = region as PhoneNumbers.CountryCode;
  const national = matcherOf(new RegExp(NATIONAL));
  const isNational = (text: string, candidate: string, start: number, end: number) => {
    const digits = candidate.replace(NOT_DIGIT, '').length;
    if (digits < PHONE_MIN_DIGITS || digits > E164_MAX_DIGITS) return false;
    if (DATE_OR_TIME.test(candidate) || DECIMAL.test(candidate) || FIGURES.test(candidate) || DOTTED_QUAD.test(candidate))
      return false;
    // Bare digits are an id, an invoice or a count as often as a number: only a value of their own counts.
    if (digits === candidate.length && !isWholeValue(text, start, end)) return false;
    return isValidPhoneNumber(candidate, country, libraries.phoneMetadata);
  };
  return (text, found, escapeEnds) => {
    const first = found.length;
    pushMatches(text, international, isInternational, false, label, found, escapeEnds);
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
      escapeEnds,
      internationals,
    );
  };
}

/** The stretch is the whole text, or a whole JSON string in it (`"4155550143"`). */
function isWholeValue(text: string, start: number, end: number): boolean {
  return (start === 0 && end === text.length) || (text[start - 1] === '"' && text[end] === '"');
}
