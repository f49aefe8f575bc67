/**
 * The detectors a configuration turns on, as one scan of a text: every finder's finds, overlaps
 * settled (the earliest, then the longest), and the tokens already in the text left as they are.
 */
import type { TokenizeSettings } from '../config/tokenize-setting.js';
import { emailFinder } from './find-emails.js';
import { fieldFinder } from './find-fields.js';
import { cardFinder, ibanFinder } from './find-checked-numbers.js';
import { ipFinder } from './find-ips.js';
import { patternFinder } from './find-patterns.js';
import { phoneFinder } from './find-phones.js';
import { settleOverlaps, type Finder, type Found } from './found.js';
import { loadLibraries } from './libraries.js';
import { DETECTOR_LABELS, PATTERN_LABEL, fieldLabel, tokenLabels, tokenPattern } from './token-text.js';

/** The shortest text a built-in detector can find anything in (`a@b.co`, `1.2.3.4`). */
const SHORTEST_FIND = 6;
const NOTHING: readonly Found[] = [];

export class Detectors {
  /** Every label these detectors give: what a restore looks for. */
  readonly labels: readonly string[];
  /** Lower-cased field name → its label. */
  private readonly fields: ReadonlyMap<string, string>;
  private readonly finders: readonly Finder[];
  private readonly shortest: number;
  private readonly hasPatterns: boolean;
  private readonly tokens: RegExp;

  constructor(settings: TokenizeSettings) {
    const libraries = loadLibraries();
    const finders: Finder[] = [];
    this.fields = new Map(settings.fields.map((field) => [field.toLowerCase(), fieldLabel(field)]));
    this.labels = tokenLabels(settings);
    this.tokens = tokenPattern(this.labels.length > 0 ? this.labels : [PATTERN_LABEL]);
    if (this.fields.size > 0) finders.push(fieldFinder(this.fields, (text) => this.isToken(text)));
    if (settings.patterns.length > 0) finders.push(patternFinder(settings.patterns, PATTERN_LABEL));
    for (const detector of settings.detectors) {
      const label = DETECTOR_LABELS[detector];
      switch (detector) {
        case 'email':
          finders.push(emailFinder(label));
          break;
        case 'phone':
          finders.push(phoneFinder(libraries, label, settings.phoneRegion));
          break;
        case 'card':
          finders.push(cardFinder(libraries, label));
          break;
        case 'iban':
          finders.push(ibanFinder(libraries, label));
          break;
        case 'ip':
          finders.push(ipFinder(label));
          break;
      }
    }
    this.finders = finders;
    // A configured pattern may match a single character.
    this.hasPatterns = settings.patterns.length > 0;
    this.shortest = this.hasPatterns ? 1 : SHORTEST_FIND;
  }

  /** Whether `text` is one token of these labels, whole: a field's value already tokenized, left as it is. */
  isToken(text: string): boolean {
    if (!text.startsWith('[') || !text.endsWith(']')) return false;
    const tokens = this.findTokens(text);
    return tokens.length === 1 && tokens[0]!.start === 0 && tokens[0]!.end === text.length;
  }

  /** The shortest text worth scanning (with no pattern configured, a shorter one can hold nothing). */
  get shortestFind(): number {
    return this.shortest;
  }

  /** The label of a field's values, by its name in any case; undefined for a field not configured. */
  fieldLabel(name: string): string | undefined {
    return this.fields.size === 0 ? undefined : this.fields.get(name.toLowerCase());
  }

  /** What to replace in `text`, in order, none overlapping another or a token already there. */
  scan(text: string): readonly Found[] {
    if (text.length < this.shortest) return NOTHING;
    const found: Found[] = [];
    for (const find of this.finders) find(text, found);
    if (found.length === 0) return NOTHING;
    // Only a configured pattern can match inside a token (no built-in detector takes `[`, `_` or `]`).
    return settleOverlaps(found, this.hasPatterns && text.includes('[') ? this.findTokens(text) : []);
  }

  /** The tokens (of these labels) in `text`, each with where it stands. */
  findTokens(text: string): Array<{ readonly token: string; readonly start: number; readonly end: number }> {
    const spans = [];
    this.tokens.lastIndex = 0;
    for (let match = this.tokens.exec(text); match !== null; match = this.tokens.exec(text)) {
      spans.push({ token: match[0], start: match.index, end: match.index + match[0].length });
    }
    return spans;
  }
}
