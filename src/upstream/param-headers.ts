/**
 * SEP-2243's `x-mcp-header` (MCP 2026-07-28, Streamable HTTP): a tool's input schema may mark a
 * parameter to be mirrored into an `Mcp-Param-<Name>` header of each `tools/call`, and a client
 * must leave out a tool whose marks break the rules. The SDK does both only inside `callTool()` and
 * `listTools()`, which check the whole result or page against its schemas; we send `tools/call`
 * with `request()` (a bad result is quoted, tool-result-check.ts) and admit tools one by one
 * (tool-admission.ts), and the SDK exports neither its scan nor its header builder. So these are
 * ours, following the SDK's rules (`scanXMcpHeaderDeclarations`, `buildMcpParamHeaders`).
 */

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

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
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
