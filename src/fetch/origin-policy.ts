/**
 * What `settings.fetch` allows of one request, checked for the script's URL and again for each
 * redirect: a listed origin (scheme, host and port exactly), one of its methods and paths, and
 * headers the script may set there. Pure: a refusal is a FetchRefusedError naming the rule and
 * what would allow the request.
 */
import { FETCH_SERVER_HEADERS, fetchApprovalOf, type FetchApproval, type FetchOriginRule } from '../config/fetch-setting.js';
import { FetchRefusedError } from '../support/errors.js';

/** 400 characters: the listed origins as a refusal names them; past it, the rest are counted. */
export const ORIGINS_NAMED_MAX_CHARS = 400;

/** Headers that carry credentials: the server adds them from the config, a script never sets them. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization'];

const SETTING = 'settings.fetch in the config file';

export class OriginPolicy {
  private readonly byOrigin: ReadonlyMap<string, FetchOriginRule>;
  private readonly pathPatterns: ReadonlyMap<FetchOriginRule, readonly RegExp[]>;

  constructor(readonly rules: readonly FetchOriginRule[]) {
    this.byOrigin = new Map(rules.map((rule) => [rule.origin, rule]));
    this.pathPatterns = new Map(rules.map((rule) => [rule, (rule.paths ?? []).map(pathGlobToRegExp)]));
  }

  /**
   * The rule that allows `method` to `url` with the script's `headers`, or a refusal. `request`
   * names it in the refusal (`GET https://x/y`); `redirectedFrom`, for a redirect's hop, the URL
   * that sent it there.
   */
  admit(
    url: URL,
    method: string,
    headers: ReadonlyArray<readonly [string, string]>,
    request: string,
    redirectedFrom?: string,
  ): FetchOriginRule {
    const refuse = (code: ConstructorParameters<typeof FetchRefusedError>[0], reason: string) =>
      new FetchRefusedError(code, request, reason);
    if (url.username !== '' || url.password !== '') {
      throw refuse(
        'FETCH_CREDENTIAL',
        `its URL carries a user name or password; credentials are the server's to add, from the headers ${SETTING} names for the origin`,
      );
    }
    const rule = url.protocol === 'http:' || url.protocol === 'https:' ? this.byOrigin.get(url.origin) : undefined;
    const origin = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : `a ${url.protocol} URL`;
    if (rule === undefined) {
      if (redirectedFrom !== undefined) {
        throw new FetchRefusedError(
          'FETCH_REDIRECT',
          request,
          `${redirectedFrom} redirected to ${origin}, which ${SETTING} does not list (${this.listed()}); ` +
            'fetch(url, {redirect: "manual"}) gives the script the redirect itself',
          'The first request was sent; nothing was sent to the new origin',
        );
      }
      throw refuse(
        'FETCH_ORIGIN',
        `${origin} is not an origin this server fetches (${this.listed()}); add it to ${SETTING} to allow it`,
      );
    }
    if (!rule.methods.includes(method)) {
      throw refuse(
        'FETCH_METHOD',
        `${rule.origin} takes ${rule.methods.join(', ')}; add ${method} to ${SETTING}["${rule.origin}"].methods to allow it`,
      );
    }
    const patterns = this.pathPatterns.get(rule)!;
    if (patterns.length > 0 && !patterns.some((pattern) => pattern.test(url.pathname))) {
      throw refuse(
        'FETCH_PATH',
        `the path ${url.pathname} is not among those ${SETTING}["${rule.origin}"].paths allows (${rule.paths!.join(', ')})`,
      );
    }
    for (const [name] of headers) {
      const lower = name.toLowerCase();
      if (FETCH_SERVER_HEADERS.includes(lower) || (lower.startsWith('proxy-') && !CREDENTIAL_HEADERS.includes(lower))) {
        throw refuse('FETCH_HEADER', `the ${name} header is the server's to write; leave it out`);
      }
      if (CREDENTIAL_HEADERS.includes(lower) || rule.headers.has(lower)) {
        throw refuse(
          'FETCH_CREDENTIAL',
          `the ${name} header is the server's to add for ${rule.origin}` +
            (rule.headers.has(lower)
              ? ' (its entry in settings.fetch sets it)'
              : ` (set it under ${SETTING}["${rule.origin}"].headers)`) +
            '; leave it out',
        );
      }
    }
    return rule;
  }

  /** Whether `method` to the rule's origin waits for a person: the entry's `approval`, else ask unless the method is safe. */
  approvalOf(rule: FetchOriginRule, method: string): FetchApproval {
    return fetchApprovalOf(rule, method);
  }

  /** `it lists https://a, https://b` or `it lists none`, cut at ORIGINS_NAMED_MAX_CHARS with the rest counted. */
  private listed(): string {
    if (this.rules.length === 0) return 'it lists none: fetch is off';
    const named: string[] = [];
    let chars = 0;
    for (const rule of this.rules) {
      if (chars + rule.origin.length > ORIGINS_NAMED_MAX_CHARS && named.length > 0) break;
      named.push(rule.origin);
      chars += rule.origin.length + 2;
    }
    const more = this.rules.length - named.length;
    return `it lists ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  }
}

/** `*`: any characters but `/`; `**`: any characters; `?`: one character but `/`; all else literal. The whole path. */
export function pathGlobToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[\\^$.+()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}
