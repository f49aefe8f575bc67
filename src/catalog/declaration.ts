/**
 * A tool's TypeScript-like declaration, made from its input and output schemas: what
 * `describe(name)` returns inside a script and what `codemode-mcp tools` prints.
 *
 * Schemas come from upstream servers in every dialect (zod-to-json-schema, zod 4, hand-written),
 * so every keyword is read defensively and anything odd becomes `unknown`: this never throws.
 */

import { cutAtWord } from '../../common/summary.js';
import type { CatalogTool, JsonSchema } from './types.js';
import { groupThousands } from '../../common/format-numbers.js';

/** 4,000 characters: a longer declaration is cut at a line and ends with a comment that says so. */
export const DECLARATION_MAX_CHARS = 4_000;

/** 8 levels of nesting: a deeper schema is shown as `unknown` with a comment pointing at ALL_TOOLS. */
export const DECLARATION_MAX_DEPTH = 8;

/** 1,500 characters of the tool's own description: the rest is cut, since ALL_TOOLS has it whole. */
export const DECLARATION_DESCRIPTION_MAX_CHARS = 1_500;

/** 200 characters of a property's comment (description and notes): the rest is cut with "…". */
export const PROPERTY_COMMENT_MAX_CHARS = 200;

/** 25 values of an enum: the rest are counted in a comment. */
export const ENUM_MAX_MEMBERS = 25;

/** 2,000 schema nodes rendered per schema: past it, types become `unknown`, so a hostile schema can't blow up. */
export const DECLARATION_MAX_NODES = 2_000;

/** An object type with no comments and no nested lines is written on one line up to this length. */
const INLINE_OBJECT_MAX_CHARS = 80;

/** A default or const value shown literally up to this length; longer ones fall back to their type. */
const LITERAL_MAX_CHARS = 60;

const CUT_MARKER = `/* … cut at ${groupThousands(DECLARATION_MAX_CHARS)} characters: the full schemas are in ALL_TOOLS */`;
const DEPTH_MARKER = 'unknown /* deeper levels: see ALL_TOOLS */';

/** How tightly a rendered type binds, to know where parentheses are needed. */
type Prec = 'union' | 'intersection' | 'atom';

interface Rendered {
  readonly text: string;
  readonly prec: Prec;
}

interface Context {
  /** The document `#` refers to. */
  readonly root: unknown;
  /**
   * For the type checker (src/typecheck/): what can't be rendered exactly becomes `any` rather
   * than `unknown`, open objects take any other key, tuples any length, and no comments: a type
   * never stricter than the schema, so a script is never refused for what the schema allows.
   */
  readonly loose: boolean;
  /** Refs being expanded right now: meeting one again means recursion. */
  readonly expanding: string[];
  nodes: number;
  cut: boolean;
}

type Member =
  | { readonly key: string; readonly optional: boolean; readonly type: string; readonly comment: string | undefined }
  | { readonly raw: string };

const UNKNOWN: Rendered = { text: 'unknown', prec: 'atom' };
const ANY: Rendered = { text: 'any', prec: 'atom' };

/** What a schema that can't be rendered exactly becomes: `unknown` to read, `any` for the checker. */
function top(ctx: Context): Rendered {
  return ctx.loose ? ANY : UNKNOWN;
}

/**
 * A schema's type for the type checker (src/typecheck/): valid TypeScript, never stricter than the
 * schema (see Context.loose), with no comments, so it also fits on one line of a JSDoc tag.
 */
export function looseTypeOf(schema: unknown): string {
  return renderType(schema, '', 0, newContext(schema, true)).text;
}

/** Whether a tool's arguments must be given: its input schema names required properties at its top. */
export function argsRequired(schema: unknown): boolean {
  return hasRequired(schema, newContext(schema, true));
}

export function declarationOf(tool: CatalogTool): string {
  try {
    return capLength(buildDeclaration(tool));
  } catch {
    // Last resort: a schema odd enough to break the renderer still gets a usable declaration.
    return `${docComment(tool.description)}tools[${JSON.stringify(String(tool.name))}](args?: { [key: string]: unknown }): Promise<{ content: Content[]; structuredContent?: unknown; isError?: boolean }>`;
  }
}

function buildDeclaration(tool: CatalogTool): string {
  const inputCtx = newContext(tool.inputSchema);
  const args = renderType(tool.inputSchema, '', 0, inputCtx).text;
  const argsMark = hasRequired(tool.inputSchema, inputCtx) ? ':' : '?:';

  let structured = 'unknown';
  const outputCtx = newContext(tool.outputSchema);
  // Indented as a member of the result object, in case the result spans lines.
  if (tool.outputSchema !== undefined) structured = renderType(tool.outputSchema, '  ', 0, outputCtx).text;
  const result = renderMembers(
    [
      { key: 'content', optional: false, type: 'Content[]', comment: undefined },
      { key: 'structuredContent', optional: true, type: structured, comment: undefined },
      { key: 'isError', optional: true, type: 'boolean', comment: undefined },
    ],
    '',
    Number.POSITIVE_INFINITY,
  );

  // The upstream's schema couldn't be used (upstream/tools/tool-admission.ts): say so where the types are.
  const note = tool.note === undefined ? '' : `/* ${escapeComment(tool.note)} */\n`;
  const text = `${docComment(tool.description)}${note}tools[${JSON.stringify(tool.name)}](args${argsMark} ${args}): Promise<${result}>`;
  return inputCtx.cut || outputCtx.cut ? `${text}\n${CUT_MARKER}` : text;
}

function newContext(root: unknown, loose = false): Context {
  return { root, loose, expanding: [], nodes: 0, cut: false };
}

function capLength(text: string): string {
  if (text.length <= DECLARATION_MAX_CHARS) return text;
  const room = DECLARATION_MAX_CHARS - CUT_MARKER.length - 1;
  let end = text.lastIndexOf('\n', room);
  if (end < room / 2) end = room;
  return `${text.slice(0, end)}\n${CUT_MARKER}`;
}

// ---- types ----

function renderType(schema: unknown, indent: string, depth: number, ctx: Context): Rendered {
  ctx.nodes += 1;
  if (ctx.nodes > DECLARATION_MAX_NODES) {
    ctx.cut = true;
    return top(ctx);
  }
  if (schema === true) return top(ctx);
  if (schema === false) return { text: 'never', prec: 'atom' };
  if (!isObject(schema)) return top(ctx);
  if (depth > DECLARATION_MAX_DEPTH) return ctx.loose ? ANY : { text: DEPTH_MARKER, prec: 'atom' };
  if (typeof schema.$ref === 'string') return withNullable(schema, renderRef(schema.$ref, indent, depth, ctx));

  const parts: Rendered[] = [];
  const base = renderBase(schema, indent, depth, ctx);
  if (base) parts.push(base);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members) && members.length > 0) {
      parts.push(union(members.map((m) => renderType(m, indent, depth + 1, ctx))));
    }
  }
  const allOf = schema.allOf;
  if (Array.isArray(allOf)) for (const m of allOf) parts.push(renderType(m, indent, depth + 1, ctx));
  return withNullable(schema, intersection(parts, ctx));
}

/** The type from `const`, `enum`, `type` (or what `properties`/`items` imply). */
function renderBase(schema: JsonSchema, indent: string, depth: number, ctx: Context): Rendered | undefined {
  if ('const' in schema) return { text: literalOf(schema.const) ?? top(ctx).text, prec: 'atom' };
  if (Array.isArray(schema.enum)) return renderEnum(schema.enum, ctx);

  let types: string[];
  if (typeof schema.type === 'string') types = [schema.type];
  else if (Array.isArray(schema.type)) types = schema.type.filter((t): t is string => typeof t === 'string');
  else if (isObject(schema.properties) || 'additionalProperties' in schema || isObject(schema.patternProperties))
    types = ['object'];
  else if ('items' in schema || Array.isArray(schema.prefixItems)) types = ['array'];
  else return undefined;

  return union(
    types.map((type): Rendered => {
      switch (type) {
        case 'string':
        case 'number':
        case 'boolean':
        case 'null':
          return { text: type, prec: 'atom' };
        case 'integer':
          return { text: 'number', prec: 'atom' };
        case 'object':
          return { text: renderObject(schema, indent, depth, ctx), prec: 'atom' };
        case 'array':
          return { text: renderArray(schema, indent, depth, ctx), prec: 'atom' };
        default:
          return top(ctx);
      }
    }),
  );
}

function renderEnum(values: readonly unknown[], ctx: Context): Rendered {
  const literals = [...new Set(values.map((v) => literalOf(v) ?? top(ctx).text))];
  if (literals.length === 0) return { text: 'never', prec: 'atom' };
  // Cut, the list would be stricter than the schema: the checker takes the values' types instead.
  if (ctx.loose && literals.length > ENUM_MAX_MEMBERS) return union(values.map(jsonTypeOf));
  const shown = literals.slice(0, ENUM_MAX_MEMBERS).join(' | ');
  const more = literals.length - ENUM_MAX_MEMBERS;
  const text = more > 0 ? `${shown} /* and ${more} more values: see ALL_TOOLS */` : shown;
  return { text, prec: literals.length > 1 ? 'union' : 'atom' };
}

function renderObject(schema: JsonSchema, indent: string, depth: number, ctx: Context): string {
  const inner = `${indent}  `;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : []);
  const members: Member[] = [];

  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  let unrendered = false;
  for (const [index, [key, sub]] of properties.entries()) {
    if (ctx.nodes >= DECLARATION_MAX_NODES) {
      ctx.cut = true;
      unrendered = true;
      if (!ctx.loose) members.push({ raw: `// … and ${properties.length - index} more properties: see ALL_TOOLS` });
      break;
    }
    members.push({
      key: propertyKey(key),
      optional: !required.has(key),
      type: renderType(sub, inner, depth + 1, ctx).text,
      comment: ctx.loose ? undefined : commentOf(sub, ctx),
    });
  }

  const additional = schema.additionalProperties;
  if (ctx.loose) {
    // Any other key, unless the schema closes the object (and every property was rendered).
    if (additional !== false || unrendered)
      members.push({ key: '[key: string]', optional: false, type: 'any', comment: undefined });
    return renderMembers(members, indent, INLINE_OBJECT_MAX_CHARS);
  }
  const indexTypes: Rendered[] = [];
  if (additional === true || isObject(additional)) indexTypes.push(renderType(additional, inner, depth + 1, ctx));
  if (isObject(schema.patternProperties)) {
    for (const sub of Object.values(schema.patternProperties)) indexTypes.push(renderType(sub, inner, depth + 1, ctx));
  }
  if (indexTypes.length > 0) {
    members.push({ key: '[key: string]', optional: false, type: union(indexTypes).text, comment: undefined });
  } else if (properties.length === 0 && additional !== false && !isObject(schema.properties)) {
    // A bare `{type: "object"}` takes any keys.
    members.push({ key: '[key: string]', optional: false, type: 'unknown', comment: undefined });
  }
  return renderMembers(members, indent, INLINE_OBJECT_MAX_CHARS);
}

function renderMembers(members: readonly Member[], indent: string, inlineMax: number): string {
  if (members.length === 0) return '{}';
  const inlineable = members.every((m) => !('raw' in m) && m.comment === undefined && !m.type.includes('\n'));
  if (inlineable) {
    const text = `{ ${members.map((m) => ('raw' in m ? m.raw : memberText(m))).join('; ')} }`;
    if (text.length <= inlineMax) return text;
  }
  const inner = `${indent}  `;
  const lines = ['{'];
  for (const m of members) {
    if ('raw' in m) {
      lines.push(`${inner}${m.raw}`);
      continue;
    }
    if (m.comment !== undefined) lines.push(`${inner}${m.comment}`);
    lines.push(`${inner}${memberText(m)};`);
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

function memberText(m: { key: string; optional: boolean; type: string }): string {
  return `${m.key}${m.optional ? '?' : ''}: ${m.type}`;
}

function renderArray(schema: JsonSchema, indent: string, depth: number, ctx: Context): string {
  // 2020-12 tuples are prefixItems + items (the rest); draft-07 tuples are items[] + additionalItems.
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (prefix) {
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    // A JSON Schema tuple may be shorter than its items, and longer unless closed: so for the checker.
    const mark = ctx.loose ? '?' : '';
    const elements = prefix.map((item: unknown) => `${arrayElement(renderType(item, indent, depth + 1, ctx), ctx)}${mark}`);
    if (rest === true || isObject(rest)) elements.push(`...${arrayOf(renderType(rest, indent, depth + 1, ctx))}`);
    else if (ctx.loose && rest !== false) elements.push('...any[]');
    return `[${elements.join(', ')}]`;
  }
  if (!('items' in schema)) return `${top(ctx).text}[]`;
  return arrayOf(renderType(schema.items, indent, depth + 1, ctx));
}

/** A tuple's element: `T?` binds tighter than a union, so an optional one is parenthesized. */
function arrayElement(element: Rendered, ctx: Context): string {
  return ctx.loose && element.prec !== 'atom' ? `(${element.text})` : element.text;
}

function arrayOf(element: Rendered): string {
  return element.prec === 'atom' && !element.text.includes('/*') ? `${element.text}[]` : `(${element.text})[]`;
}

function renderRef(ref: string, indent: string, depth: number, ctx: Context): Rendered {
  // A recursive type is named for the reader; the checker has no such name, so `any`.
  if (ctx.expanding.includes(ref)) return ctx.loose ? ANY : { text: refName(ref), prec: 'atom' };
  const target = resolveRef(ref, ctx.root);
  if (target === undefined) return top(ctx);
  ctx.expanding.push(ref);
  try {
    return renderType(target, indent, depth, ctx);
  } finally {
    ctx.expanding.pop();
  }
}

/** `#`, `#/$defs/X`, `#/definitions/X`, or any JSON pointer into the same document. Other refs are unknown. */
function resolveRef(ref: string, root: unknown): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodePointerSegment(raw);
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function decodePointerSegment(raw: string): string {
  let segment = raw;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded after all: use it as it is.
  }
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The name a recursive ref is shown by: its last segment, made an identifier. */
function refName(ref: string): string {
  const last = ref === '#' ? 'Root' : decodePointerSegment(ref.slice(ref.lastIndexOf('/') + 1));
  const name = last.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[A-Za-z_$]/.test(name) ? name : `_${name}`;
}

function union(parts: readonly Rendered[]): Rendered {
  if (parts.some((p) => p.text === 'any')) return ANY;
  if (parts.some((p) => p.text === 'unknown')) return UNKNOWN;
  const texts = [...new Set(parts.map((p) => p.text))];
  if (texts.length === 0) return UNKNOWN;
  if (texts.length === 1) return parts.find((p) => p.text === texts[0]) ?? UNKNOWN;
  return { text: texts.join(' | '), prec: 'union' };
}

function intersection(parts: readonly Rendered[], ctx: Context): Rendered {
  // A part that can't be rendered constrains nothing the others don't already allow.
  const kept = parts.filter((p) => p.text !== 'unknown' && p.text !== 'any');
  const unique = kept.filter((p, i) => kept.findIndex((q) => q.text === p.text) === i);
  if (unique.length === 0) return top(ctx);
  if (unique.length === 1) return unique[0] ?? top(ctx);
  return { text: unique.map((p) => (p.prec === 'union' ? `(${p.text})` : p.text)).join(' & '), prec: 'intersection' };
}

function withNullable(schema: JsonSchema, type: Rendered): Rendered {
  // OpenAPI's `nullable: true`, which some hand-written schemas carry.
  if (schema.nullable !== true || type.text === 'unknown' || type.text === 'any') return type;
  return union([type, { text: 'null', prec: 'atom' }]);
}

/** A JSON value as a TypeScript literal type, or undefined when it is too long to show. */
function literalOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (text === undefined || text.length > LITERAL_MAX_CHARS) return undefined;
  return text;
}

function defaultOf(value: unknown): string {
  const literal = literalOf(value);
  if (literal !== undefined) return literal;
  if (typeof value === 'string') return JSON.stringify(`${value.slice(0, LITERAL_MAX_CHARS - 3)}…`);
  return '(long value: see ALL_TOOLS)';
}

function hasRequired(schema: unknown, ctx: Context, seen: ReadonlySet<unknown> = new Set()): boolean {
  if (!isObject(schema) || seen.has(schema)) return false;
  const next = new Set(seen).add(schema);
  if (typeof schema.$ref === 'string') return hasRequired(resolveRef(schema.$ref, ctx.root), ctx, next);
  if (Array.isArray(schema.required) && schema.required.length > 0) return true;
  // A union may or may not allow no arguments: the reader is told to give some, the checker lets it be.
  if (!ctx.loose && (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf))) return true;
  return Array.isArray(schema.allOf) && schema.allOf.some((m) => hasRequired(m, ctx, next));
}

// ---- comments ----

const NOTED_KEYWORDS = [
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
] as const;

/** A property's one-line comment: its description (or title), then its default, format and bounds. */
function commentOf(schema: unknown, ctx: Context): string | undefined {
  if (!isObject(schema)) return undefined;
  let merged: JsonSchema = schema;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, ctx.root);
    if (isObject(target)) merged = { ...target, ...schema };
  }
  const parts: string[] = [];
  const text = typeof merged.description === 'string' ? merged.description : typeof merged.title === 'string' ? merged.title : '';
  const line = oneLine(text);
  if (line) parts.push(line);
  if ('default' in merged) parts.push(`@default ${defaultOf(merged.default)}`);
  for (const keyword of NOTED_KEYWORDS) {
    const value = merged[keyword];
    if (typeof value === 'string' || typeof value === 'number') parts.push(`@${keyword} ${String(value)}`);
  }
  if (merged.deprecated === true) parts.push('@deprecated');
  if (parts.length === 0) return undefined;
  return `/** ${escapeComment(cutAtWord(parts.join(' '), PROPERTY_COMMENT_MAX_CHARS))} */`;
}

/** The tool's description as a doc comment: one line when it is one line, a block otherwise. */
function docComment(description: unknown): string {
  if (typeof description !== 'string') return '';
  const lines = escapeComment(cutAtWord(description.trim(), DECLARATION_DESCRIPTION_MAX_CHARS))
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l, i, all) => l !== '' || all[i - 1] !== '');
  if (lines.length === 0 || lines[0] === '') return '';
  if (lines.length === 1) return `/** ${lines[0]} */\n`;
  return `/**\n${lines.map((l) => ` *${l ? ` ${l}` : ''}`).join('\n')}\n */\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function escapeComment(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

/** A JSON value's type as TypeScript names it. */
function jsonTypeOf(value: unknown): Rendered {
  if (value === null) return { text: 'null', prec: 'atom' };
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return { text: typeof value, prec: 'atom' };
    default:
      return ANY;
  }
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
