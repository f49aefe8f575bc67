// The approval page over real HTTP, in process: its own loopback listener (stdio's) and a route of
// another server (--http's), asked by fetch with the headers a browser sends and those an attacker
// would; the browser itself is test/e2e/approval-page-browser.test.ts's.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalPage, type ApprovalPageOptions } from '../../../src/approvals/page/approval-page.js';
import type { PageQuestion } from '../../../src/approvals/page/page-links.js';
import { PAGE_BODY_MAX_BYTES } from '../../../src/approvals/page/page-requests.js';
import { until } from '../../support/waiting.js';

const question = (calls = ['{"path":"a.txt"}']): PageQuestion => ({
  script: 'a1b2c3-1',
  principal: 'local',
  owner: 'this session',
  tool: {
    name: 'fs__delete_file',
    server: 'fs',
    upstreamName: 'delete_file',
    title: 'Delete',
    annotations: { destructiveHint: true },
  },
  calls: () => calls,
});

const pages: ApprovalPage[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

function loopbackPage(options: Partial<ApprovalPageOptions> = {}): { page: ApprovalPage; lines: string[] } {
  const lines: string[] = [];
  const page = new ApprovalPage({
    place: { kind: 'loopback' },
    timeoutMs: 60_000,
    log: (line) => void lines.push(line),
    ...options,
  });
  pages.push(page);
  return { page, lines };
}

/** A page served as a route of another server, as --http serves it, for instance `a`. */
async function routePage(): Promise<{ page: ApprovalPage; origin: string }> {
  let origin = '';
  const page = new ApprovalPage({
    place: { kind: 'route', origin: () => origin, hostnames: ['127.0.0.1', 'localhost'], instance: 'a' },
    timeoutMs: 60_000,
    log: () => {},
  });
  const server = createServer((req, res) => void page.serve(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { page, origin };
}

/** The page's form fields, read from its HTML. */
async function formOf(url: string): Promise<Record<string, string>> {
  const html = await (await fetch(url)).text();
  const fields: Record<string, string> = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
  );
  expect(Object.keys(fields)).toEqual(['form', 'bound']);
  return fields;
}

function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: new URL(url).origin, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('the approval page', () => {
  it('starts its loopback listener at the first question and answers it with safe headers and the whole question', async () => {
    const opened: string[] = [];
    const { page, lines } = loopbackPage({ openBrowser: (url) => void opened.push(url) });
    const link = await page.open(question(['{"path":"a.txt"}', '{"path":"<b>.txt"}']), new AbortController().signal);
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approve\/[A-Za-z0-9_-]{43}$/);
    expect(opened).toEqual([link.url]);
    const answer = await fetch(link.url);
    expect(answer.status).toBe(200);
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      'cache-control': 'no-store',
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    });
    expect(answer.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    const html = await answer.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('<dt>Server</dt><dd>fs</dd><dt>Tool</dt><dd>delete_file (scripts call it fs__delete_file)</dd>');
    expect(html).toContain('&quot;path&quot;: &quot;&lt;b&gt;.txt&quot;');
    expect(lines.join('\n')).toMatch(/approval page listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(lines.join('\n')).not.toContain(link.url.slice(link.url.lastIndexOf('/') + 1));
  });

  it("takes a decision posted from the page's own origin with its form, once: the answer is the form's, and the link says so", async () => {
    const { page } = loopbackPage();
    const link = await page.open(question(), new AbortController().signal);
    const fields = await formOf(link.url);
    const decided = await post(link.url, { ...fields, choice: 'allow-owner', minutes: '15' });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toBe(new URL(link.url).pathname);
    await expect(link.decided).resolves.toEqual({ action: 'accept', content: { decision: 'allow-owner', minutes: 15 } });
    const again = await post(link.url, { ...fields, choice: 'deny' });
    expect(again.status).toBe(409);
    const html = await (await fetch(link.url)).text();
    expect(html).toContain('<h1>Already decided: Allowed for 15 min</h1>');
    expect(html).not.toContain('<button');
  });

  it.each([
    ['no Origin', { Origin: '' }],
    ['the Origin of another port on this machine', { Origin: 'http://127.0.0.1:1' }],
    ['the Origin of another site', { Origin: 'https://evil.example' }],
    ['a browser saying it came from another site', { 'Sec-Fetch-Site': 'cross-site' }],
  ])('refuses a decision with %s, changing nothing and using nothing up', async (_what, headers) => {
    const { page } = loopbackPage();
    const link = await page.open(question(), new AbortController().signal);
    const fields = await formOf(link.url);
    const refused = await post(link.url, { ...fields, choice: 'allow' }, headers);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Nothing was decided, and the link is as it was.');
    expect(page.links.openCount).toBe(1);
    expect((await post(link.url, { ...fields, choice: 'deny' })).status).toBe(303);
    await expect(link.decided).resolves.toEqual({ action: 'accept', content: { decision: 'deny' } });
  });

  it('refuses any request whose Host is not this server (DNS rebinding), deciding nothing', async () => {
    const { page } = loopbackPage();
    const link = await page.open(question(), new AbortController().signal);
    const fields = await formOf(link.url);
    const url = new URL(link.url);
    const status = await new Promise<number>((resolve, reject) => {
      const body = new URLSearchParams({ ...fields, choice: 'allow' }).toString();
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            Host: `rebound.example:${url.port}`,
            Origin: `http://rebound.example:${url.port}`,
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
    expect(page.links.openCount).toBe(1);
  });

  it.each([
    ['another form token', (fields: Record<string, string>) => ({ ...fields, form: 'A'.repeat(43), choice: 'allow' }), 403],
    ['a calls digest not the page’s', (fields: Record<string, string>) => ({ ...fields, bound: 'x', choice: 'allow' }), 409],
    ['an answer the page does not offer', (fields: Record<string, string>) => ({ ...fields, choice: 'allow-everything' }), 400],
    ['minutes out of range', (fields: Record<string, string>) => ({ ...fields, choice: 'allow-owner', minutes: '100000' }), 400],
    [
      'a form too large',
      (fields: Record<string, string>) => ({ ...fields, choice: 'allow', pad: 'x'.repeat(PAGE_BODY_MAX_BYTES) }),
      413,
    ],
  ])('refuses a decision with %s, and the link stays open', async (_what, change, status) => {
    const { page } = loopbackPage();
    const link = await page.open(question(), new AbortController().signal);
    const fields = await formOf(link.url);
    expect((await post(link.url, change(fields))).status).toBe(status);
    expect(page.links.openCount).toBe(1);
  });

  it('refuses what is not a form POST or a GET: another body type, another method', async () => {
    const { page } = loopbackPage();
    const link = await page.open(question(), new AbortController().signal);
    const json = await fetch(link.url, {
      method: 'POST',
      headers: { Origin: new URL(link.url).origin, 'Content-Type': 'application/json' },
      body: '{"choice":"allow"}',
    });
    expect(json.status).toBe(415);
    const put = await fetch(link.url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(page.links.openCount).toBe(1);
  });

  it('ends a link as expired when approvalTimeoutMs aborts its question, and as withdrawn when the script ends', async () => {
    const { page } = loopbackPage();
    const timeout = new AbortController();
    const expired = await page.open(question(), timeout.signal);
    const ended = new AbortController();
    const withdrawn = await page.open(question(), ended.signal);
    timeout.abort(new DOMException('approvalTimeoutMs passed', 'TimeoutError'));
    ended.abort(new Error('the script ended'));
    await expect(expired.decided).rejects.toThrow('approvalTimeoutMs passed');
    await expect(withdrawn.decided).rejects.toThrow('the script ended');
    expect(await (await fetch(expired.url)).text()).toContain('<h1>Expired</h1>');
    expect(await (await fetch(withdrawn.url)).text()).toContain('<h1>Withdrawn</h1>');
  });

  it('closes its listener once no question has been open for its idle time, and opens a new one for the next', async () => {
    const { page, lines } = loopbackPage({ idleMs: 10 });
    const first = await page.open(question(), new AbortController().signal);
    first.end({ kind: 'withdrawn' });
    await until('the listener to close', () => lines.some((line) => line.includes('approval page closed')));
    await expect(fetch(first.url)).rejects.toThrow();
    const second = await page.open(question(), new AbortController().signal);
    expect((await fetch(second.url)).status).toBe(200);
  });

  it("as --http's route, names its instance in the link and refuses a link of another instance", async () => {
    const { page, origin } = await routePage();
    const link = await page.open(question(), new AbortController().signal);
    expect(link.url).toMatch(new RegExp(`^${origin}/approve/a\\.[A-Za-z0-9_-]{43}$`));
    expect((await fetch(link.url)).status).toBe(200);
    const token = link.url.slice(link.url.indexOf('/approve/a.') + '/approve/a.'.length);
    const elsewhere = await fetch(`${origin}/approve/b.${token}`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toContain('This link belongs to instance &quot;b&quot;, and this is instance &quot;a&quot;');
    expect((await fetch(`${origin}/approve/${token}`)).status).toBe(404);
    const fields = await formOf(link.url);
    expect((await post(link.url, { ...fields, choice: 'allow' })).status).toBe(303);
  });
});
