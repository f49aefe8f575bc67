/**
 * A text or a JSON value with what the detectors find replaced by tokens, around one request to
 * the vault. A value's distinct strings (object keys included) are scanned as one text, joined by
 * line breaks, rather than one by one: a megabyte of rows is some 40,000 short strings, and a
 * scan's fixed cost per string was most of the time. Strings and numbers under a configured field are
 * taken whole, unscanned. The copy shares every part of the value that has nothing to replace.
 */
import type { Detectors } from './detectors.js';
import type { Found } from './found.js';
import { TokenRequests } from './token-requests.js';
import type { TokenScope, TokenVault } from './token-vault.js';

const JOIN = '\n';
const NOTHING: readonly Found[] = [];

/** `text` with each find replaced by its token (a JSON number's token in quotes); `shift` is subtracted from the finds' offsets. */
export function spliceTokens(text: string, found: readonly Found[], requests: TokenRequests, shift = 0): string {
  let out = '';
  let at = 0;
  for (const one of found) {
    const token = requests.tokenOf(one.value);
    out += text.slice(at, one.start - shift) + (one.quote === undefined ? token : `${one.quote}${token}${one.quote}`);
    at = one.end - shift;
  }
  return out + text.slice(at);
}

export async function tokenizeText(text: string, detectors: Detectors, vault: TokenVault, scope: TokenScope): Promise<string> {
  const found = detectors.scan(text);
  if (found.length === 0) return text;
  const requests = new TokenRequests();
  for (const one of found) requests.add(one.label, one.value);
  await requests.resolve(vault, scope);
  return spliceTokens(text, found, requests);
}

/** A string under a field is tokenized whole unless it is empty or a token already. */
function isWholeValue(text: string, detectors: Detectors): boolean {
  return text !== '' && !detectors.isToken(text);
}

/** Each string's finds in one scan's coordinates: the string's place in the joined text is `shift`. */
interface StringFinds {
  readonly found: readonly Found[];
  readonly shift: number;
}

const NONE: StringFinds = { found: NOTHING, shift: 0 };

/** The first pass: the distinct strings to scan (a row's keys, a status met a thousand times: once each), and the values under fields. */
class Collector {
  readonly requests = new TokenRequests();
  readonly strings: string[] = [];
  /** Each string to scan → its place in `strings`. */
  readonly index = new Map<string, number>();

  constructor(private readonly detectors: Detectors) {}

  walk(value: unknown, fieldLabel: string | undefined): void {
    if (typeof value === 'string') {
      if (fieldLabel === undefined) this.scanLater(value);
      else if (isWholeValue(value, this.detectors)) this.requests.add(fieldLabel, value);
    } else if (typeof value === 'number') {
      if (fieldLabel !== undefined && Number.isFinite(value)) this.requests.add(fieldLabel, value);
    } else if (Array.isArray(value)) {
      for (const item of value) this.walk(item, fieldLabel);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        this.scanLater(key);
        this.walk((value as Record<string, unknown>)[key], fieldLabel ?? this.detectors.fieldLabel(key));
      }
    }
  }

  private scanLater(text: string): void {
    if (text.length < this.detectors.shortestFind || this.index.has(text)) return;
    this.index.set(text, this.strings.length);
    this.strings.push(text);
  }

  /**
   * Each string's finds, by its place in `strings`: one scan of them all joined; a string that a
   * find runs out of (a configured pattern that matches a line break) is scanned again alone.
   */
  scanStrings(): StringFinds[] {
    const { strings, detectors } = this;
    const starts: number[] = [];
    let offset = 0;
    for (const text of strings) {
      starts.push(offset);
      offset += text.length + JOIN.length;
    }
    const found = detectors.scan(strings.join(JOIN));
    const alone = new Set<number>();
    const owner = (at: number, from: number) => {
      let i = from;
      while (i + 1 < strings.length && at >= starts[i + 1]!) i++;
      return i;
    };
    const owners: number[] = [];
    let i = 0;
    for (const one of found) {
      i = owner(one.start, i);
      owners.push(i);
      const last = owner(one.end - 1, i);
      if (last !== i || one.end > starts[i]! + strings[i]!.length) for (let k = i; k <= last; k++) alone.add(k);
    }
    const perString: StringFinds[] = new Array<StringFinds>(strings.length).fill(NONE);
    const mine = new Map<number, Found[]>();
    found.forEach((one, n) => {
      const at = owners[n]!;
      if (alone.has(at)) return;
      const list = mine.get(at);
      if (list === undefined) mine.set(at, [one]);
      else list.push(one);
      this.requests.add(one.label, one.value);
    });
    for (const [at, list] of mine) perString[at] = { found: list, shift: starts[at]! };
    for (const at of alone) {
      const own = detectors.scan(strings[at]!);
      for (const one of own) this.requests.add(one.label, one.value);
      perString[at] = { found: own, shift: 0 };
    }
    return perString;
  }
}

/** Sets a key as JSON.parse does, `__proto__` included (an assignment would set the prototype). */
function define(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** The second pass: the copy, sharing whatever has nothing replaced. */
class Builder {
  constructor(
    private readonly detectors: Detectors,
    private readonly requests: TokenRequests,
    private readonly index: ReadonlyMap<string, number>,
    private readonly finds: readonly StringFinds[],
  ) {}

  private scanned(text: string): string {
    const at = this.index.get(text);
    if (at === undefined) return text;
    const { found, shift } = this.finds[at]!;
    return found.length === 0 ? text : spliceTokens(text, found, this.requests, shift);
  }

  build(value: unknown, fieldLabel: string | undefined): unknown {
    if (typeof value === 'string') {
      if (fieldLabel === undefined) return this.scanned(value);
      return isWholeValue(value, this.detectors) ? this.requests.tokenOf(value) : value;
    }
    if (typeof value === 'number') {
      return fieldLabel !== undefined && Number.isFinite(value) ? this.requests.tokenOf(value) : value;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      value.forEach((item, i) => {
        const built = this.build(item, fieldLabel);
        if (built !== item) (copy ??= value.slice())[i] = built;
      });
      return copy ?? value;
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      const keys = Object.keys(record);
      keys.forEach((key, i) => {
        const newKey = this.scanned(key);
        const item = record[key];
        const built = this.build(item, fieldLabel ?? this.detectors.fieldLabel(key));
        if (copy === undefined && newKey === key && built === item) return;
        if (copy === undefined) {
          copy = {};
          for (const before of keys.slice(0, i)) define(copy, before, record[before]);
        }
        define(copy, newKey, built);
      });
      return copy ?? value;
    }
    return value;
  }
}

export async function tokenizeValue(
  value: unknown,
  detectors: Detectors,
  vault: TokenVault,
  scope: TokenScope,
): Promise<unknown> {
  const collector = new Collector(detectors);
  collector.walk(value, undefined);
  const finds = collector.scanStrings();
  if (collector.requests.size === 0) return value;
  await collector.requests.resolve(vault, scope);
  return new Builder(detectors, collector.requests, collector.index, finds).build(value, undefined);
}
