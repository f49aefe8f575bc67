/**
 * A `fetch` call's arguments, as prelude/fetch.ts makes them (protocol/contract.ts, FETCH_CALLS):
 * an honest child sends nothing else, so anything else is a breach (null here). What the policy
 * allows of the request is the fetcher's to say (src/fetch/).
 */
import type { FetchRequest } from './apis.js';
import { cutText } from './call-label.js';

const FIELDS = ['url', 'method', 'headers', 'redirect', 'body', 'bodyBase64'];
const REDIRECTS = ['follow', 'manual', 'error'] as const;

/** RFC 9110's token: a method or a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value as the prelude's Headers keeps it: no line break, no NUL, no space at either end. */
const HEADER_VALUE = /^(?:[^\r\n\0\t ](?:[^\r\n\0]*[^\r\n\0\t ])?)?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function fetchRequest(args: Record<string, unknown>): FetchRequest | null {
  const { url, method, headers, redirect, body, bodyBase64 } = args;
  if (!Object.keys(args).every((key) => FIELDS.includes(key))) return null;
  if (typeof url !== 'string' || typeof method !== 'string' || !TOKEN.test(method) || method !== method.toUpperCase())
    return null;
  const mode = REDIRECTS.find((known) => known === redirect);
  if (mode === undefined || !Array.isArray(headers)) return null;
  const names = new Set<string>();
  for (const pair of headers as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return null;
    const [name, value] = pair as unknown[];
    if (typeof name !== 'string' || typeof value !== 'string' || !TOKEN.test(name) || name !== name.toLowerCase()) return null;
    if (!HEADER_VALUE.test(value) || names.has(name)) return null;
    names.add(name);
  }
  if (body !== undefined && (typeof body !== 'string' || bodyBase64 !== undefined)) return null;
  if (bodyBase64 !== undefined && (typeof bodyBase64 !== 'string' || !BASE64.test(bodyBase64) || bodyBase64.length % 4 !== 0))
    return null;
  const label = `fetch ${method} ${cutText(url)}`;
  return {
    url,
    method,
    headers: headers as Array<[string, string]>,
    ...(typeof body === 'string'
      ? { body: { text: body } }
      : typeof bodyBase64 === 'string'
        ? { body: { base64: bodyBase64 } }
        : {}),
    redirect: mode,
    label,
  };
}
