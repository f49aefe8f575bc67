/**
 * Numbers that carry their own check, so a match is rarely chance: payment cards (an issuer's
 * prefix and length, and the Luhn digit: validator's isCreditCard) and IBANs (the country's
 * format and the mod-97 check: validator's isIBAN). Candidates are bounded runs, checked after.
 */
import type { Finder } from './found.js';
import type { Libraries } from './libraries.js';

/**
 * 13 to 19 digits, optionally in groups split by a space or a dash, opening with a digit some
 * issuer's numbers open with (isCreditCard's list: none opens with 0, 7 or 9); not inside a longer
 * run or an id.
 */
const CARD = /[1-68]\d{3}(?:[ -]?\d){9,15}(?![\w]|[.,/-]\d)/g;
/** What joins a card number to what stands before it (a letter, a digit, `_`, `.`, `,`, `/`, `-`). */
const JOINED_CARD = /[\w.,/-]/;
/** Two capitals, two check digits, then groups of four letters or digits (spaces between them optional). */
const IBAN = /[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g;
const JOINED_IBAN = /[A-Za-z0-9]/;
const SEPARATORS = /[ -]/g;
/** The openings isCreditCard's issuers have: a 1 only as JCB's 1800, an 8 only as UnionPay's 81 (so an epoch in ms is passed over). */
const ISSUER_OPENING = /^(?:[2-6]|1800|81)/;

export function cardFinder(libraries: Libraries, label: string): Finder {
  return checkedFinder(CARD, JOINED_CARD, label, (candidate) => {
    const digits = candidate.replace(SEPARATORS, '');
    return ISSUER_OPENING.test(digits) && libraries.isCreditCard(digits);
  });
}

export function ibanFinder(libraries: Libraries, label: string): Finder {
  return checkedFinder(IBAN, JOINED_IBAN, label, (candidate) => libraries.isIban(candidate.replace(SEPARATORS, '')));
}

/** Each run of `shape` that stands alone (no `joined` character before it) and passes `check`. */
function checkedFinder(shape: RegExp, joined: RegExp, label: string, check: (candidate: string) => boolean): Finder {
  const pattern = new RegExp(shape);
  return (text, found) => {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const candidate = match[0];
      // Checked here, not by a lookbehind: one that opens the pattern is tried at every digit, and slowly.
      if (match.index > 0 && joined.test(text[match.index - 1]!)) continue;
      if (check(candidate)) found.push({ start: match.index, end: match.index + candidate.length, label, value: candidate });
    }
  };
}
