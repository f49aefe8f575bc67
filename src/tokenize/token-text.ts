/**
 * What a token looks like: `[LABEL_n]`, a label in capitals and a number from 1, numbered per
 * label within a scope. The labels a configuration gives, and how a field name becomes one.
 */
import type { TokenDetector, TokenizeSettings } from '../config/tokenize-setting.js';

/** The label of each built-in detector's tokens. */
export const DETECTOR_LABELS: Readonly<Record<TokenDetector, string>> = {
  email: 'EMAIL',
  phone: 'PHONE',
  card: 'CARD',
  iban: 'IBAN',
  ip: 'IP',
};

/** The label of a configured pattern's tokens. */
export const PATTERN_LABEL = 'SECRET';

/** A value a token stands for: a string, or a number found under a configured field. */
export type TokenValue = string | number;

export function formatToken(label: string, n: number): string {
  return `[${label}_${n}]`;
}

/**
 * A field name as a label: `name` → NAME, `firstName` and `first-name` → FIRST_NAME; one that would
 * start with a digit (or has no letter or digit) gets `FIELD_` in front.
 */
export function fieldLabel(field: string): string {
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z]/.test(words) ? words : `FIELD_${words}`.replace(/_$/, '');
}

/** A global regular expression for the tokens of these labels, capturing the label and the number. */
export function tokenPattern(labels: Iterable<string>): RegExp {
  const alternatives = [...new Set(labels)].sort((a, b) => b.length - a.length).join('|');
  return new RegExp(`\\[(${alternatives})_([1-9]\\d{0,9})\\]`, 'g');
}

/** Every label these settings give, in order (detectors, patterns, fields): what a restore looks for and the model is told of. */
export function tokenLabels(settings: Pick<TokenizeSettings, 'detectors' | 'patterns' | 'fields'>): string[] {
  return [
    ...new Set([
      ...settings.detectors.map((detector) => DETECTOR_LABELS[detector]),
      ...(settings.patterns.length > 0 ? [PATTERN_LABEL] : []),
      ...settings.fields.map(fieldLabel),
    ]),
  ];
}
