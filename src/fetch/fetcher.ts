/**
 * A script's fetch(), made by the server (issue 49): the origin policy checked for the script's
 * URL and again at each redirect, a person asked where the policy says so, places in flight per
 * script and per principal, the credentials of the origin added (and no other origin's), a time
 * limit over the whole fetch, and what comes back scrubbed of those credentials. Each request is
 * logged and traced; each fetch gets an audit line.
 */
import { createHash } from 'node:crypto';
import { formatBytes } from '../../common/format-numbers.js';
import type { FetchOriginRule } from '../config/fetch-setting.js';
import type { Settings } from '../config/settings.js';
import { FetchFailedError, FetchRefusedError, RefusedError } from '../support/errors.js';
import { Logger, type Log } from '../support/log.js';
import { callOutcome, errorType } from '../telemetry/call-outcome.js';
import { auditFetch } from '../telemetry/fetch-audit.js';
import { activeTelemetry, type TraceContext } from '../telemetry/telemetry.js';
import { PrivateAddressError, SYSTEM_RESOLVER, type Resolver } from './checked-lookup.js';
import { FETCH_IN_FLIGHT_PER_PRINCIPAL, FETCH_IN_FLIGHT_PER_SCRIPT, InFlight } from './in-flight.js';
import { OriginPolicy } from './origin-policy.js';
import { Redactor } from './redact.js';
import { BodyTooLargeError, sendRequest, type OneResponse } from './send-request.js';
import { timeoutSignal } from '../support/timeout-signal.js';

/** 20: redirects one fetch follows, as the web's fetch does; one more rejects with TypeError. */
export const FETCH_REDIRECTS_MAX = 20;

/** 150 characters: a URL's path and query as a question to a person shows them; longer, their start, marked as cut. */
export const QUESTION_URL_MAX_CHARS = 150;

/** What a script asked: its fetch(url, init) as the prelude sent it, the body as bytes. */
export interface FetchOrder {
  readonly url: string;
  /** Upper case. */
  readonly method: string;
  /** Names lower-cased, none twice. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer;
  readonly redirect: 'follow' | 'manual' | 'error';
}

/** A request that waits for a person, as the question shows it. */
export interface FetchQuestion {
  /** What an answer covers (a grant for the script, or for a time): `fetch POST https://api.github.com`. */
  readonly subject: string;
  /** The request after its subject: `/repos/o/r/issues, body 1.2 KiB sha256 1a2b3c4d5e6f7a8b`. Never a credential. */
  readonly request: string;
}

/** Who fetches: whose places it takes, where its spans go, how a person is asked. */
export interface FetchParty {
  readonly principal: string;
  readonly session: string;
  readonly script: string;
  readonly trace?: TraceContext;
  /**
   * Asks a person about a request; resolves with what to call once the request has settled, or
   * rejects with the refusal (ToolRefused APPROVAL_*). Absent: no one is asked, and each request goes.
   */
  readonly approve?: (question: FetchQuestion) => Promise<() => void>;
}

/** What the script's Response is made of: the last response of the fetch, scrubbed of the server's credentials. */
export interface FetchedResponse {
  readonly status: number;
  readonly statusText: string;
  /** The URL of the last request (after redirects). */
  readonly url: string;
  readonly redirected: boolean;
  /** Names lower-cased, in order; Set-Cookie left out, as the web's fetch does. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

export interface FetcherOptions {
  readonly rules: readonly FetchOriginRule[];
  /** fetchMaxBytes. */
  readonly maxBytes: number;
  /** fetchTimeoutMs. */
  readonly timeoutMs: number;
  readonly log: Log;
  /** The name lookup; the system's by default (tests give their own). */
  readonly resolve?: Resolver;
  /** Sent when the script sets no User-Agent (some APIs, GitHub's among them, refuse a request without one). */
  readonly userAgent?: string;
}

const REDIRECTS = [301, 302, 303, 307, 308];

/** Headers of the request's body, dropped when a redirect turns it into a GET. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

/** Response headers a script never sees, as the web's fetch hides them: nothing of a cookie is kept or passed on. */
const HIDDEN_RESPONSE_HEADERS = ['set-cookie', 'set-cookie2'];

export class Fetcher {
  readonly policy: OriginPolicy;
  private readonly perScript = new InFlight(FETCH_IN_FLIGHT_PER_SCRIPT);
  private readonly perPrincipal = new InFlight(FETCH_IN_FLIGHT_PER_PRINCIPAL);
  private readonly redactor: Redactor;
  private readonly resolve: Resolver;
  /** Failures sendOne has logged already; any other refusal gets its line when the fetch settles. */
  private readonly logged = new WeakSet<object>();
  private readonly log: Logger;

  constructor(private readonly options: FetcherOptions) {
    this.policy = new OriginPolicy(options.rules);
    this.redactor = new Redactor(options.rules.flatMap((rule) => rule.headers.secrets));
    this.resolve = options.resolve ?? SYSTEM_RESOLVER;
    this.log = Logger.of(options.log).child('fetch');
  }

  /**
   * Makes the fetch. Rejects with a RefusedError (FetchRefusedError, or the approval's
   * ToolRefusedError) for a request the policy or a person refused, with FetchFailedError for one
   * that failed on the way (the script's TypeError), and as `signal` says once it aborts.
   */
  async fetch(order: FetchOrder, party: FetchParty, signal: AbortSignal): Promise<FetchedResponse> {
    const time = new Date().toISOString();
    const started = performance.now();
    let first: URL;
    try {
      first = new URL(order.url);
    } catch {
      throw new FetchFailedError(`${order.method} ${order.url}`, 'it is not an absolute http:// or https:// URL');
    }
    const label = `${order.method} ${first.origin === 'null' ? first.protocol : first.origin}${first.pathname}`;
    const trail = { redirects: 0, status: undefined as number | undefined };
    const answer = this.follow(order, first, label, party, signal, trail);
    answer.then(
      (response) => this.audit(party, order.method, first, time, started, trail.redirects, { result: response }),
      (error: unknown) => {
        if (error instanceof RefusedError && !this.logged.has(error)) {
          this.log.info(`script ${party.script} ${label} → refused: ${error.message}`);
        }
        this.audit(party, order.method, first, time, started, trail.redirects, { error }, trail.status);
      },
    );
    return answer;
  }

  private async follow(
    order: FetchOrder,
    first: URL,
    label: string,
    party: FetchParty,
    signal: AbortSignal,
    trail: { redirects: number; status: number | undefined },
  ): Promise<FetchedResponse> {
    let url = first;
    let method = order.method;
    let body = order.body;
    let headers = order.headers;
    let rule = this.policy.admit(url, method, headers, label);
    const releases: Array<() => void> = [];
    const approved = new Set<string>();
    const approve = async (): Promise<void> => {
      const subject = `fetch ${method} ${rule.origin}`;
      if (party.approve === undefined || this.policy.approvalOf(rule, method) !== 'ask' || approved.has(subject)) return;
      releases.push(await party.approve({ subject, request: describeRequest(url, body) }));
      approved.add(subject);
    };
    try {
      await approve();
      const freeScript = await this.perScript.take(`${party.principal}\0${party.session}\0${party.script}`, signal);
      releases.push(freeScript);
      releases.push(await this.perPrincipal.take(party.principal, signal));
      const deadline = AbortSignal.any([signal, timeoutSignal(this.options.timeoutMs)]);
      for (;;) {
        const response = await this.sendOne(url, method, headers, body, rule, order.redirect, party, deadline, signal, trail);
        trail.status = response.status;
        const location = response.headers.find(([name]) => name === 'location')?.[1];
        if (!REDIRECTS.includes(response.status) || location === undefined || order.redirect === 'manual') {
          return this.delivered(response, url, trail.redirects > 0);
        }
        const from = `${url.origin}${url.pathname}`;
        if (order.redirect === 'error') {
          throw new FetchFailedError(label, `${from} redirected (${response.status}) and the fetch said redirect: "error"`);
        }
        if (trail.redirects === FETCH_REDIRECTS_MAX) {
          throw new FetchFailedError(label, `more than ${FETCH_REDIRECTS_MAX} redirects`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchFailedError(label, `${from} redirected to a Location that is not a URL`);
        }
        // The web's rules: 303 makes any method but HEAD a GET, and 301 and 302 make a POST one; the body goes.
        if (
          (response.status === 303 && method !== 'HEAD') ||
          ((response.status === 301 || response.status === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
          headers = headers.filter(([name]) => !BODY_HEADERS.includes(name));
        }
        rule = this.policy.admit(next, method, headers, label, from);
        url = next;
        trail.redirects++;
        await approve();
      }
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  /** One request, in its span and with its log line; the errors of the way become the script's refusals and failures. */
  private async sendOne(
    url: URL,
    method: string,
    scriptHeaders: ReadonlyArray<readonly [string, string]>,
    body: Buffer | undefined,
    rule: FetchOriginRule,
    redirect: FetchOrder['redirect'],
    party: FetchParty,
    deadline: AbortSignal,
    scriptSignal: AbortSignal,
    trail: { readonly redirects: number },
  ): Promise<OneResponse> {
    const where = `${method} ${url.origin}${url.pathname}`;
    const info = {
      method,
      url: `${url.origin}${url.pathname}`,
      serverAddress: url.hostname.replace(/^\[|\]$/g, ''),
      serverPort: url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      resendCount: trail.redirects,
    };
    const keepBody = (status: number, headers: ReadonlyArray<readonly [string, string]>): boolean =>
      redirect === 'manual' || !REDIRECTS.includes(status) || !headers.some(([name]) => name === 'location');
    try {
      const response = await activeTelemetry().httpRequest(info, party.trace, (traceHeaders) =>
        sendRequest(
          {
            url,
            method,
            headers: this.headersFor(rule, scriptHeaders, traceHeaders),
            ...(body !== undefined ? { body } : {}),
            allowPrivate: rule.allowPrivate,
            resolve: this.resolve,
            signal: deadline,
            maxBytes: this.options.maxBytes,
          },
          keepBody,
        ),
      );
      this.log.info(`script ${party.script} ${where} → ${response.status}, ${formatBytes(response.body.length)}`);
      return response;
    } catch (error) {
      const why = this.whyFailed(error, where, rule, trail.redirects, deadline, scriptSignal);
      this.logged.add(why);
      this.log.info(`script ${party.script} ${where} → ${why instanceof RefusedError ? 'refused' : 'failed'}: ${why.message}`);
      throw why;
    }
  }

  /** The script's headers, then the origin's own (which the policy kept the script from setting), then what the server always sends. */
  private headersFor(
    rule: FetchOriginRule,
    scriptHeaders: ReadonlyArray<readonly [string, string]>,
    traceHeaders: Readonly<Record<string, string>>,
  ): Array<readonly [string, string]> {
    const headers: Array<readonly [string, string]> = [...scriptHeaders, ...rule.headers.entries()];
    const has = (name: string): boolean => headers.some(([given]) => given === name);
    if (!has('user-agent')) headers.push(['user-agent', this.options.userAgent ?? 'codemode-mcp']);
    if (!has('accept')) headers.push(['accept', '*/*']);
    headers.push(['accept-encoding', 'gzip, deflate, br']);
    for (const [name, value] of Object.entries(traceHeaders)) if (!has(name)) headers.push([name, value]);
    return headers;
  }

  private whyFailed(
    error: unknown,
    where: string,
    rule: FetchOriginRule,
    redirects: number,
    deadline: AbortSignal,
    scriptSignal: AbortSignal,
  ): Error {
    const sent =
      redirects > 0 ? 'An earlier request of the redirects was sent; nothing was sent to this one' : 'Nothing was sent';
    if (error instanceof PrivateAddressError) {
      return new FetchRefusedError(
        'FETCH_PRIVATE',
        where,
        `${error.text}, which a fetch reaches only when settings.fetch["${rule.origin}"] says "allowPrivate": true`,
        sent,
      );
    }
    if (error instanceof BodyTooLargeError) {
      return new FetchRefusedError(
        'FETCH_TOO_LARGE',
        where,
        `the response (status ${error.status}): ${error.text}, past fetchMaxBytes (${formatBytes(error.maxBytes)}); ` +
          'ask for less (a page, a range, a filter), or raise fetchMaxBytes',
        'The request was sent and may have taken effect; its body was not read past the cap',
      );
    }
    if (error instanceof RefusedError || error instanceof FetchFailedError) return error;
    if (scriptSignal.aborted) return error instanceof Error ? error : new Error(String(error));
    if (deadline.aborted) {
      return new FetchFailedError(
        where,
        `no whole answer within ${this.options.timeoutMs} ms (fetchTimeoutMs); the request was aborted and may have taken effect`,
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    const message = error instanceof Error ? error.message : String(error);
    return new FetchFailedError(where, code !== undefined && !message.includes(code) ? `${message} (${code})` : message, {
      cause: error,
    });
  }

  /** What the script gets: its credentials replaced wherever they came back, Set-Cookie left out. */
  private delivered(response: OneResponse, url: URL, redirected: boolean): FetchedResponse {
    return {
      status: response.status,
      statusText: this.redactor.text(response.statusText),
      url: this.redactor.text(url.href),
      redirected,
      headers: response.headers
        .filter(([name]) => !HIDDEN_RESPONSE_HEADERS.includes(name))
        .map(([name, value]) => [name, this.redactor.text(value)] as const),
      body: this.redactor.body(response.body),
    };
  }

  private audit(
    party: FetchParty,
    method: string,
    url: URL,
    time: string,
    started: number,
    redirects: number,
    ending: { result: FetchedResponse } | { error: unknown },
    lastStatus?: number,
  ): void {
    const status = 'result' in ending ? ending.result.status : lastStatus;
    auditFetch({
      time,
      principal: party.principal,
      session: party.session,
      script: party.script,
      fetch: { method, origin: url.origin, path: url.pathname },
      ...(status !== undefined ? { status } : {}),
      ...('result' in ending ? { bytes: ending.result.body.length } : {}),
      redirects,
      outcome: 'result' in ending ? 'answered' : callOutcome(ending),
      ...('error' in ending ? { error: errorType(ending.error) } : {}),
      durationMs: Math.round(performance.now() - started),
    });
  }
}

/**
 * `/repos/o/r/issues?state=open, body 1.2 KiB sha256 1a2b3c4d5e6f7a8b`: the request as a person
 * reads it after its subject (`fetch POST https://api.github.com`), which names the method and origin.
 */
function describeRequest(url: URL, body: Buffer | undefined): string {
  const path = `${url.pathname}${url.search}`;
  const shown =
    path.length <= QUESTION_URL_MAX_CHARS ? path : `${path.slice(0, QUESTION_URL_MAX_CHARS)}… (${path.length} characters)`;
  if (body === undefined || body.length === 0) return shown;
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return `${shown}, body ${formatBytes(body.length)} sha256 ${digest}`;
}

/** The server's fetcher, from its settings (`fetch`, fetchMaxBytes, fetchTimeoutMs); the origins it allows said once in the log. */
export function fetcherFor(settings: Settings, log: Log, version: string): Fetcher {
  if (settings.fetch.length > 0) {
    const origins = settings.fetch.map((rule) => `${rule.origin} (${rule.methods.join(', ')})`).join(', ');
    Logger.of(log).child('fetch').info(`scripts may fetch ${origins}`);
  }
  return new Fetcher({
    rules: settings.fetch,
    maxBytes: settings.fetchMaxBytes,
    timeoutMs: settings.fetchTimeoutMs,
    log,
    userAgent: `codemode-mcp/${version}`,
  });
}
