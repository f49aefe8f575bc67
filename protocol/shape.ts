/**
 * A message's shape, described once as data: its TypeScript type is inferred from the description
 * (`MessageOf`), and a peer's message is checked against the same description (`checkShape`).
 * protocol/ imports nothing but common/ and the child loads it, so this is a handful of field kinds,
 * as many as the child's messages need, not a schema library.
 *
 * A check refuses with the caller's `undecodable` code for a message of no known kind or a field of
 * the wrong type, and with a field's own `refusal` for a value of the right type that is past its
 * cap or is not the JSON it must be: a hostile peer is told the specific refusal the contract names.
 */

interface FieldRules {
  /** Absent is allowed; present, it must be of its kind. */
  readonly optional?: true;
}

/** A string; `maxChars` and `json` are its rules, `refusal` what breaking them is (else undecodable). */
interface TextField<R extends string> extends FieldRules {
  readonly kind: 'text';
  readonly maxChars?: number;
  /** The text must parse as JSON: the receiver parses it later, and must not throw there. */
  readonly json?: true;
  readonly refusal?: R;
}

/** A safe integer, at least `min`. */
interface CountField extends FieldRules {
  readonly kind: 'count';
  readonly min: number;
}

/** Any number. */
interface NumberField extends FieldRules {
  readonly kind: 'number';
}

/** One of a few strings. */
interface ChoiceField<V extends readonly string[]> extends FieldRules {
  readonly kind: 'choice';
  readonly values: V;
}

/** The literal `true`: a flag that is either set or absent. */
interface TrueField extends FieldRules {
  readonly kind: 'true';
}

type Field = TextField<string> | CountField | NumberField | ChoiceField<readonly string[]> | TrueField;

/**
 * The frame's payload (bytes after its JSON) as a field of the message: the one place a large
 * value travels unescaped. Its bytes are counted before they are decoded.
 */
interface PayloadRule<N extends string, R extends string> {
  /** The field the payload becomes; the same name as a field of the JSON is undecodable. */
  readonly field: N;
  readonly maxChars: number;
  /** Refused when past `maxChars` (or past 3 bytes a character, before decoding). */
  readonly tooLarge: R;
  /** Refused when the text is not JSON. */
  readonly notJson: R;
}

type AnyShape = MessageShape<Readonly<Record<string, Field>>, PayloadRule<string, string> | undefined>;

/** Shapes keyed by their message's kind, `t`. */
type Shapes = Readonly<Record<string, AnyShape>>;

export interface MessageShape<F extends Readonly<Record<string, Field>>, P extends PayloadRule<string, string> | undefined> {
  readonly fields: F;
  readonly payload: P;
}

/** A string; `text({ optional: true, ... })` for an optional one (`optional()` would widen its refusal). */
export function text<const Rules extends Omit<TextField<string>, 'kind'> = Record<never, never>>(
  rules: Rules = {} as Rules,
): { readonly kind: 'text' } & Rules {
  return { kind: 'text', ...rules };
}

export function count(min: number): CountField {
  return { kind: 'count', min };
}

export function number(): NumberField {
  return { kind: 'number' };
}

export function choice<const V extends readonly string[]>(...values: V): ChoiceField<V> {
  return { kind: 'choice', values };
}

export function flag(): TrueField {
  return { kind: 'true' };
}

/** A field that may be absent; present, it must be of its kind. */
export function optional<F extends Field>(field: F): F & { readonly optional: true } {
  return { ...field, optional: true };
}

export function shape<const F extends Readonly<Record<string, Field>>>(fields: F): MessageShape<F, undefined>;
export function shape<const F extends Readonly<Record<string, Field>>, const N extends string, R extends string>(
  fields: F,
  payload: PayloadRule<N, R>,
): MessageShape<F, PayloadRule<N, R>>;
export function shape(
  fields: Record<string, Field>,
  payload?: PayloadRule<string, string>,
): MessageShape<Record<string, Field>, never> {
  return { fields, payload } as MessageShape<Record<string, Field>, never>;
}

type ValueOf<F> = F extends { readonly kind: 'text' }
  ? string
  : F extends { readonly kind: 'count' | 'number' }
    ? number
    : F extends ChoiceField<infer V>
      ? V[number]
      : F extends { readonly kind: 'true' }
        ? true
        : never;

/** The message a shape describes, under its kind `t`. */
export type MessageOf<T extends string, S> =
  S extends MessageShape<infer F, infer P>
    ? { readonly t: T } & { readonly [K in keyof F as F[K] extends { optional: true } ? never : K]: ValueOf<F[K]> } & {
        readonly [K in keyof F as F[K] extends { optional: true } ? K : never]?: ValueOf<F[K]>;
      } & (P extends PayloadRule<infer N, string> ? { readonly [K in N]?: string } : unknown)
    : never;

/** Every message of a set of shapes keyed by kind: the union the receiver switches on. */
export type MessagesOf<S extends Shapes> = {
  [T in keyof S & string]: MessageOf<T, S[T]>;
}[keyof S & string];

/** The bytes of a frame's payload, as the receiver holds them (a Buffer). */
export interface PayloadBytes {
  readonly length: number;
  toString(encoding: 'utf8'): string;
}

export type ShapeChecked<M, R extends string> =
  { readonly ok: true; readonly message: M } | { readonly ok: false; readonly refusal: R };

/**
 * Checks a parsed message against the shape its `t` names: every field's type, then each field's
 * rules, then the payload's. Fields no shape names are left as they are.
 */
export function checkShape<S extends Shapes, R extends string>(
  shapes: S,
  message: Readonly<Record<string, unknown>>,
  payload: PayloadBytes,
  undecodable: R,
): ShapeChecked<MessagesOf<S>, R | RefusalsOf<S>> {
  const kind = message.t;
  const found = typeof kind === 'string' && Object.hasOwn(shapes, kind) ? (shapes[kind] as AnyShape) : undefined;
  if (found === undefined) return { ok: false, refusal: undecodable };
  const rule = found.payload;
  if (payload.length > 0 && rule === undefined) return { ok: false, refusal: undecodable };
  const fields = Object.entries(found.fields);
  if (!fields.every(([name, field]) => hasKind(message[name], field))) return { ok: false, refusal: undecodable };
  if (rule !== undefined && message[rule.field] !== undefined) return { ok: false, refusal: undecodable };
  for (const [name, field] of fields) {
    const value = message[name];
    if (field.kind === 'text' && typeof value === 'string' && !keepsTextRules(value, field)) {
      return { ok: false, refusal: (field.refusal ?? undecodable) as R };
    }
  }
  if (rule === undefined || payload.length === 0) return { ok: true, message: message as MessagesOf<S> };
  // UTF-8 takes at most 3 bytes a UTF-16 character: past that, too large before it is decoded.
  if (payload.length > 3 * rule.maxChars) return { ok: false, refusal: rule.tooLarge as R };
  const value = payload.toString('utf8');
  if (value.length > rule.maxChars) return { ok: false, refusal: rule.tooLarge as R };
  if (!isJson(value)) return { ok: false, refusal: rule.notJson as R };
  return { ok: true, message: { ...message, [rule.field]: value } as MessagesOf<S> };
}

type FieldRefusal<F> = F extends { readonly refusal: infer R extends string } ? R : never;
type ShapeRefusals<S> =
  S extends MessageShape<infer F, infer P>
    ? FieldRefusal<F[keyof F]> | (P extends PayloadRule<string, infer R> ? R : never)
    : never;
/** The refusals a set of shapes names, besides the caller's undecodable. */
type RefusalsOf<S extends Shapes> = ShapeRefusals<S[keyof S]>;

function hasKind(value: unknown, field: Field): boolean {
  if (value === undefined) return field.optional === true;
  switch (field.kind) {
    case 'text':
      return typeof value === 'string';
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= field.min;
    case 'number':
      return typeof value === 'number';
    case 'choice':
      return typeof value === 'string' && field.values.includes(value);
    case 'true':
      return value === true;
  }
}

function keepsTextRules(value: string, field: TextField<string>): boolean {
  if (field.maxChars !== undefined && value.length > field.maxChars) return false;
  return field.json !== true || isJson(value);
}

/** Text the receiver will parse: JSON that isn't is a refusal here, not a throw there. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
