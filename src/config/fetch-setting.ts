/**
 * `settings.fetch` (issue 49): the origins scripts may fetch, each with the methods, the headers the
 * server adds (credentials from the environment, which scripts never see), whether a person
 * approves, the paths and whether it may be a private address. Read whole (the setting's spec,
 * feature-settings.ts): the first problem comes back as its place inside the setting and what is wrong.
 */
import { inspect } from 'node:util';
import { closestName } from '../../common/closest-names.js';
import { valueType } from '../support/echo.js';
import { CodemodeError } from '../support/errors.js';
import { credentialHeaders, isCleartextToAnotherHost } from './cleartext.js';
import type { ConfigPath } from './config-error.js';
import { VariableError, expandVariables } from './expand-variables.js';
import type { VariableSource } from './types.js';

export type FetchApproval = 'allow' | 'ask';

/** One origin scripts may fetch, as the server uses it: checked, its header values expanded. */
export interface FetchOriginRule {
  /** `https://api.github.com`: scheme, host and port exactly, as URL.origin writes them. */
  readonly origin: string;
  /** Upper case, as sent. */
  readonly methods: readonly string[];
  /** The headers the server adds to every request to the origin. */
  readonly headers: ServerHeaders;
  /** Absent: the safe methods go at once and every other one asks (FETCH_SAFE_METHODS). */
  readonly approval?: FetchApproval;
  /** Globs over the URL's path (`*` within a segment, `**` across); absent: every path. */
  readonly paths?: readonly string[];
  /** The origin may be, or resolve to, a loopback, private, link-local or metadata address. */
  readonly allowPrivate: boolean;
}

/** Methods a listed origin takes when its entry names none. */
export const FETCH_DEFAULT_METHODS: readonly string[] = ['GET', 'HEAD'];

/**
 * Methods that only read (RFC 9110's safe methods): with no `approval` in the entry they go at
 * once, and every other method (POST, PUT, PATCH, DELETE, …) waits for a person.
 */
export const FETCH_SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/**
 * Headers the server alone writes (the connection's framing, the host, the encodings it decodes):
 * neither an entry nor a script may set them.
 */
export const FETCH_SERVER_HEADERS: readonly string[] = [
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept-encoding',
  'proxy-connection',
];

/** Methods no origin may take: the web's fetch forbids them too. */
const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

/** Whether `method` to the rule's origin waits for a person: the entry's `approval`, else ask unless the method is safe. */
export function fetchApprovalOf(rule: FetchOriginRule, method: string): FetchApproval {
  return rule.approval ?? (FETCH_SAFE_METHODS.includes(method) ? 'allow' : 'ask');
}

const ENTRY_KEYS = ['methods', 'headers', 'approval', 'paths', 'allowPrivate', 'allowInsecureHttp'] as const;

/** RFC 9110's token: a method or a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The headers an entry has the server add. Their values are credentials: they print as `(set)`
 * (JSON, util.inspect), so no log or dump of the settings carries them.
 */
export class ServerHeaders {
  readonly #values: ReadonlyMap<string, string>;
  readonly #secrets: readonly string[];

  /** `values` by lower-cased name; `secrets`: the text each `${VAR}` in them gave. */
  constructor(values: ReadonlyMap<string, string>, secrets: readonly string[]) {
    this.#values = values;
    this.#secrets = secrets;
  }

  /** Lower-cased. */
  get names(): string[] {
    return [...this.#values.keys()];
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  /** For the request alone. */
  entries(): Array<[string, string]> {
    return [...this.#values];
  }

  /** What came from the environment: a response that echoes it has it replaced (src/fetch/redact.ts). */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries(this.names.map((name) => [name, '(set)']));
  }

  [inspect.custom](): string {
    return `ServerHeaders { ${this.names.join(', ')} }`;
  }
}

/** The first problem of a `settings.fetch`: where inside it (`["https://x.example", "methods", 0]`), and what is wrong. */
export interface FetchSettingIssue {
  readonly path: ConfigPath;
  readonly message: string;
}

/** Thrown inside the reading alone, and returned by readFetchOrigins as its issue. */
class Refusal extends CodemodeError {
  override readonly name = 'FetchSettingRefusal';
  readonly code = 'SETTING_INVALID';

  constructor(readonly issue: FetchSettingIssue) {
    super(issue.message);
  }
}

type Invalid = (path: ConfigPath, detail: string) => Refusal;

/**
 * `settings.fetch`: `{"<origin>": {methods?, headers?, approval?, paths?, allowPrivate?, allowInsecureHttp?}}`,
 * its header values expanded from `env`: the rules in the file's order, or the first problem.
 */
export function readFetchOrigins(
  value: unknown,
  env: VariableSource,
): { rules: FetchOriginRule[] } | { issue: FetchSettingIssue } {
  try {
    return { rules: readOrigins(value, env) };
  } catch (error) {
    if (error instanceof Refusal) return { issue: error.issue };
    throw error;
  }
}

function readOrigins(value: unknown, env: VariableSource): FetchOriginRule[] {
  const invalid: Invalid = (path, message) => new Refusal({ path, message });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(
      [],
      `must be an object of origins, as in {"https://api.github.com": {"methods": ["GET"]}} (got ${valueType(value)})`,
    );
  }
  const rules: FetchOriginRule[] = [];
  for (const [key, entry] of Object.entries(value)) {
    const origin = originOf(key, (detail) => invalid([key], detail));
    const twin = rules.find((rule) => rule.origin === origin);
    if (twin !== undefined) throw invalid([key], `is the origin ${origin} again; list each origin once`);
    rules.push(readOriginEntry(origin, entry, env, (path, detail) => invalid([key, ...path], detail)));
  }
  return rules;
}

/** The key as an origin: http or https, a host, perhaps a port; no path, query, fragment or credentials. */
function originOf(key: string, invalid: (detail: string) => Refusal): string {
  let url: URL;
  try {
    url = new URL(key);
  } catch {
    throw invalid('is not a URL; name an origin as in "https://api.github.com" or "http://127.0.0.1:8080"');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(`is a ${url.protocol} URL; an origin scripts fetch is http:// or https://`);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid('carries a user name or password; put credentials in the entry\'s "headers", which scripts never see');
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]$/.test(key)) {
    throw invalid(`is not only an origin; write ${url.origin} and list the paths under "paths"`);
  }
  return url.origin;
}

function readOriginEntry(origin: string, entry: unknown, env: VariableSource, invalid: Invalid): FetchOriginRule {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw invalid([], `must be an object such as {"methods": ["GET"]} (got ${valueType(entry)})`);
  }
  const fields = entry as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if ((ENTRY_KEYS as readonly string[]).includes(key)) continue;
    const guess = closestName(key, ENTRY_KEYS);
    throw invalid(
      [key],
      `is not a field of an origin${guess === null ? '' : ` (did you mean "${guess}"?)`}; it takes ${ENTRY_KEYS.join(', ')}`,
    );
  }
  const methods = readMethods(fields.methods, invalid);
  const headers = readHeaders(fields.headers, env, invalid);
  const approval = fields.approval;
  if (approval !== undefined && approval !== 'allow' && approval !== 'ask') {
    throw invalid(['approval'], `must be "allow" or "ask" (got ${JSON.stringify(approval) ?? valueType(approval)})`);
  }
  const paths = fields.paths === undefined ? undefined : readPaths(fields.paths, invalid);
  const allowPrivate = readFlag(fields.allowPrivate, 'allowPrivate', invalid);
  const allowInsecureHttp = readFlag(fields.allowInsecureHttp, 'allowInsecureHttp', invalid);
  const credentials = credentialHeaders(Object.fromEntries(headers.names.map((name) => [name, ''])));
  if (!allowInsecureHttp && credentials.length > 0 && isCleartextToAnotherHost(origin)) {
    throw invalid(
      ['headers'],
      `sends ${credentials.map((name) => `"${name}"`).join(', ')} to ${origin}, plain http to another machine, where anyone on ` +
        'the way can read it; use https, or say "allowInsecureHttp": true in the entry',
    );
  }
  return {
    origin,
    methods,
    headers,
    ...(approval !== undefined ? { approval } : {}),
    ...(paths !== undefined ? { paths } : {}),
    allowPrivate,
  };
}

function readMethods(value: unknown, invalid: Invalid): string[] {
  if (value === undefined) return [...FETCH_DEFAULT_METHODS];
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(['methods'], `must be a non-empty list of methods, as in ["GET", "POST"] (got ${valueType(value)})`);
  }
  const methods: string[] = [];
  value.forEach((method: unknown, i) => {
    if (typeof method !== 'string' || !TOKEN.test(method)) {
      throw invalid(['methods', i], `must be an HTTP method such as "GET" (got ${JSON.stringify(method) ?? valueType(method)})`);
    }
    const upper = method.toUpperCase();
    if (FORBIDDEN_METHODS.includes(upper)) throw invalid(['methods', i], `is ${upper}, which fetch never sends`);
    if (!methods.includes(upper)) methods.push(upper);
  });
  return methods;
}

function readHeaders(value: unknown, env: VariableSource, invalid: Invalid): ServerHeaders {
  if (value === undefined) return new ServerHeaders(new Map(), []);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(
      ['headers'],
      `must be an object of header values, as in {"Authorization": "Bearer \${TOKEN}"} (got ${valueType(value)})`,
    );
  }
  const values = new Map<string, string>();
  const secrets: string[] = [];
  for (const [name, text] of Object.entries(value)) {
    const at = ['headers', name];
    if (!TOKEN.test(name)) throw invalid(at, "is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)");
    const lower = name.toLowerCase();
    if (FETCH_SERVER_HEADERS.includes(lower) || lower.startsWith('proxy-')) {
      throw invalid(at, 'is a header the server writes itself; leave it out');
    }
    if (values.has(lower)) throw invalid(at, 'is named twice (header names are case-insensitive); keep one');
    if (typeof text !== 'string') throw invalid(at, `must be a string (got ${valueType(text)})`);
    let expanded: string;
    try {
      expanded = expandVariables(text, env);
      // Each `${VAR}` alone: the text it gave is what a response must not echo back to a script.
      for (const [reference] of text.matchAll(/\$\{[^}]*\}/g)) secrets.push(expandVariables(reference, env));
    } catch (error) {
      if (error instanceof VariableError) throw invalid(at, error.message);
      throw error;
    }
    // The unexpanded value is not quoted: the expanded one may be a secret.
    if (/[\r\n\0]/.test(expanded)) throw invalid(at, 'holds a line break or NUL once expanded; a header value is one line');
    values.set(lower, expanded.trim());
  }
  return new ServerHeaders(values, secrets);
}

function readPaths(value: unknown, invalid: Invalid): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(['paths'], `must be a non-empty list of path globs, as in ["/repos/**", "/user"] (got ${valueType(value)})`);
  }
  return value.map((glob: unknown, i) => {
    if (typeof glob !== 'string' || !glob.startsWith('/')) {
      throw invalid(
        ['paths', i],
        `must be a path glob starting with "/" (* within a segment, ** across them) (got ${JSON.stringify(glob) ?? valueType(glob)})`,
      );
    }
    return glob;
  });
}

function readFlag(value: unknown, name: string, invalid: Invalid): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalid([name], `must be true or false (got ${valueType(value)})`);
  return value;
}
