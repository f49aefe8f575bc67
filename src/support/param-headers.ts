/**
 * SEP-2243's `x-mcp-header` (MCP 2026-07-28, Streamable HTTP): a tool's input schema may mark a
 * parameter to be mirrored into an `Mcp-Param-<Name>` header of each `tools/call`, so a proxy can
 * route on it (our `code_execution`'s `script`, so `wait` and `stop` reach the instance that runs
 * the script). The codec, both sides in one place: the marks and their rules (a client must leave
 * out a tool whose marks break them), the headers a client sends (upstream/), and the check a
 * server makes that header and body agree (http/). The SDK does the client side only inside
 * `callTool()` and `listTools()`, which check the whole result or page against its schemas; we send
 * `tools/call` with `request()` (a bad result is quoted, tool-result-check.ts) and admit tools one
 * by one (tool-admission.ts), and the SDK exports neither its scan nor its header builder. So these
 * are ours, following the SDK's rules (`scanXMcpHeaderDeclarations`, `buildMcpParamHeaders`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { valueAt } from './value-path.js';

/** JSON-RPC's HeaderMismatch (SEP-2243), as the SDK answers a mismatched `Mcp-Method`. */
export const HEADER_MISMATCH = -32020;

/** A parameter the schema marks: where it is in the arguments, and its header's name. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly name: string;
}

export type ParamHeaderScan =
  { readonly valid: true; readonly headers: readonly ParamHeader[] } | { readonly valid: false; readonly reason: string };

const MARK = 'x-mcp-header';
/** RFC 9110 §5.1 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** `number` is left out on purpose: the spec allows only these. */
const MIRRORED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Subschemas a mark may not be under: it must be reachable through `properties` alone. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Of those, the ones whose value maps names to subschemas. */
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
/** `=?base64?…?=`: a value that isn't plain ASCII travels Base64-encoded. */
const BASE64_WRAPPED = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The parameters `inputSchema` marks, or the first rule a mark breaks. */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const schema = node as Record<string, unknown>;
    if (MARK in schema) {
      const where = path.length === 0 ? 'the root' : path.join('.');
      if (!reachable || path.length === 0) return `${where}: ${MARK} is allowed only on a property reached through "properties"`;
      const name = schema[MARK];
      if (typeof name !== 'string' || !TOKEN.test(name)) return `${where}: ${MARK} ${JSON.stringify(name)} is not an HTTP token`;
      if (typeof schema.type !== 'string' || !MIRRORED_TYPES.has(schema.type)) {
        return `${where}: ${MARK} is allowed only on a string, integer or boolean, not ${JSON.stringify(schema.type ?? null)}`;
      }
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `${where}: ${MARK} "${name}" repeats "${earlier}"`;
      seen.set(name.toLowerCase(), name);
      headers.push({ path, name });
    }
    const properties = schema.properties;
    if (typeof properties === 'object' && properties !== null) {
      for (const [key, child] of Object.entries(properties)) {
        const broken = visit(child, [...path, key], reachable);
        if (broken !== undefined) return broken;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED.has(keyword) && typeof sub === 'object' && sub !== null
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const broken = visit(branch, [...path, `<${keyword}>`], false);
        if (broken !== undefined) return broken;
      }
    }
    return undefined;
  };
  const reason = visit(inputSchema, [], true);
  return reason === undefined ? { valid: true, headers } : { valid: false, reason };
}

/**
 * The `Mcp-Param-*` headers of one call: a marked argument that is absent, null or not a primitive
 * gets none; a value that is not plain visible ASCII (or has spaces at an end) is sent as
 * `=?base64?<UTF-8 in base64>?=`.
 */
export function paramHeaderValues(headers: readonly ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const { path, name } of headers) {
    const text = primitiveText(valueAt(args, path));
    if (text !== undefined) values[`Mcp-Param-${name}`] = encodeValue(text);
  }
  return values;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) {
    return String(value);
  }
  return undefined;
}

function encodeValue(text: string): string {
  const plain =
    text !== '' &&
    text === text.trim() &&
    !(text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) &&
    [...text].every((char) => char === '\t' || (char >= ' ' && char <= '~'));
  return plain ? text : `${BASE64_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
}

/**
 * What is wrong with a request's parameter headers against its body, or undefined: a header and
 * its parameter must both be given, with one value (SEP-2243: a router reading the header and a
 * server reading the body must not see two). `schema` is the called tool's inputSchema.
 */
export function paramHeaderMismatch(headers: IncomingHttpHeaders, schema: unknown, args: unknown): string | undefined {
  const scan = scanParamHeaders(schema);
  // A schema whose marks break the rules marks nothing a client would send (it leaves the tool out).
  if (!scan.valid) return undefined;
  for (const { path, name } of scan.headers) {
    const parameter = path.join('.');
    const header = `Mcp-Param-${name}`;
    const raw = headers[header.toLowerCase()];
    const body = valueAt(args, path);
    const inBody = body !== undefined && body !== null;
    if (raw === undefined) {
      if (inBody) return `the body gives ${parameter} but the ${header} header is missing; send both, with the same value`;
      continue;
    }
    const value = decodeValue(Array.isArray(raw) ? raw.join(', ') : raw);
    if (value === undefined) return `the ${header} header's =?base64?…?= value is not valid Base64`;
    if (!inBody) return `the ${header} header is given but the body has no ${parameter}`;
    if (value !== (primitiveText(body) ?? JSON.stringify(body))) {
      return `the body's ${parameter} and the ${header} header disagree; send the same value in both`;
    }
  }
  return undefined;
}

/** A header's value: leading and trailing spaces dropped (RFC 9110), Base64 decoded when wrapped; undefined when that fails. */
function decodeValue(raw: string): string | undefined {
  const value = raw.trim();
  const wrapped = BASE64_WRAPPED.exec(value);
  if (wrapped === null) return value;
  const encoded = wrapped[1]!;
  if (!BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}
