/**
 * SEP-2243's custom headers: a tool parameter marked `x-mcp-header: Name` travels in the body and,
 * from a 2026-07-28 client, as the header `Mcp-Param-Name` too, so a proxy can route on it
 * (`code_execution`'s `script`, so `wait` and `stop` reach the instance that runs the script). A
 * router that reads the header and a server that reads the body must not see two values: the
 * server refuses a request whose header and body disagree, or where one is given without the
 * other. The SDK checks `Mcp-Method` and `Mcp-Name`; the tools' own headers are checked here.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** JSON-RPC's HeaderMismatch (SEP-2243), as the SDK answers a mismatched `Mcp-Method`. */
export const HEADER_MISMATCH = -32020;

/** `=?base64?…?=`: a value that isn't plain ASCII travels Base64-encoded. */
const BASE64_WRAPPED = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What is wrong with the request's parameter headers, or undefined. `schema` is the called tool's inputSchema. */
export function paramHeaderMismatch(
  headers: IncomingHttpHeaders,
  schema: { readonly properties?: unknown } | undefined,
  args: unknown,
): string | undefined {
  const properties = (schema?.properties ?? {}) as Record<string, { readonly 'x-mcp-header'?: unknown } | undefined>;
  const given = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  for (const [parameter, property] of Object.entries(properties)) {
    const name = property?.['x-mcp-header'];
    if (typeof name !== 'string') continue;
    const header = `Mcp-Param-${name}`;
    const raw = headers[header.toLowerCase()];
    const body = given[parameter];
    const inBody = body !== undefined && body !== null;
    if (raw === undefined) {
      if (inBody) return `the body gives ${parameter} but the ${header} header is missing; send both, with the same value`;
      continue;
    }
    const value = decodeHeader(Array.isArray(raw) ? raw.join(', ') : raw);
    if (value === undefined) return `the ${header} header's =?base64?…?= value is not valid Base64`;
    if (!inBody) return `the ${header} header is given but the body has no ${parameter}`;
    if (value !== (typeof body === 'string' ? body : JSON.stringify(body))) {
      return `the body's ${parameter} and the ${header} header disagree; send the same value in both`;
    }
  }
  return undefined;
}

/** The header's value: leading and trailing spaces dropped (RFC 9110), Base64 decoded when wrapped; undefined when that fails. */
function decodeHeader(raw: string): string | undefined {
  const value = raw.trim();
  const wrapped = BASE64_WRAPPED.exec(value);
  if (wrapped === null) return value;
  const encoded = wrapped[1]!;
  if (!BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}
