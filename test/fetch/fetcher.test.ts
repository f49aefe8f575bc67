/**
 * The server's fetcher in-process, against HTTP servers the tests start on 127.0.0.1: what a
 * listed origin gets (its credential, added by the server; nothing of another origin's), and each
 * rule refusing with its code: origin, method, path, headers, credentials, private addresses,
 * redirects, a body past the cap, a request past its time; and the bounds on requests in flight.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FETCH_REDIRECTS_MAX, Fetcher, type FetchOrder, type FetchParty } from '../../src/fetch/fetcher.js';
import { FETCH_IN_FLIGHT_PER_PRINCIPAL, FETCH_IN_FLIGHT_PER_SCRIPT } from '../../src/fetch/in-flight.js';
import type { Resolver } from '../../src/fetch/checked-lookup.js';
import { REDACTED } from '../../src/fetch/redact.js';
import type { FetchOriginRule } from '../../src/config/fetch-setting.js';
import { FetchFailedError, FetchRefusedError } from '../../src/support/errors.js';
import { closeTargets, originRule, startTarget, type FetchTarget } from '../support/fetch-target.js';

afterEach(closeTargets);

const TOKEN = 'ghp_0123456789abcdefSECRET';
const MiB = 1024 * 1024;

function fetcherOf(rules: FetchOriginRule[], extra: { maxBytes?: number; timeoutMs?: number; resolve?: Resolver } = {}) {
  const lines: string[] = [];
  const fetcher = new Fetcher({
    rules,
    maxBytes: extra.maxBytes ?? 10 * MiB,
    timeoutMs: extra.timeoutMs ?? 30_000,
    log: (line) => lines.push(line),
    ...(extra.resolve !== undefined ? { resolve: extra.resolve } : {}),
  });
  return { fetcher, lines };
}

const party: FetchParty = { principal: 'alice', session: 's1', script: 'abc-1' };

function order(url: string, more: Partial<FetchOrder> = {}): FetchOrder {
  return { url, method: 'GET', headers: [], redirect: 'follow', ...more };
}

function get(fetcher: Fetcher, url: string, more: Partial<FetchOrder> = {}, who: FetchParty = party) {
  return fetcher.fetch(order(url, more), who, new AbortController().signal);
}

/** The refusal's code and message, for a fetch that must be refused. */
async function refusal(answer: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await answer.then(
    () => {
      throw new Error('the fetch was answered');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}

/** A target that answers every request with what it got, as JSON, and says so in its headers. */
function echoTarget(): Promise<FetchTarget> {
  return startTarget((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.setHeader('x-echo-authorization', String(request.headers.authorization ?? ''));
    response.end(
      JSON.stringify({ method: request.method, path: request.path, headers: request.headers, body: request.body.toString() }),
    );
  });
}

describe('a listed origin', () => {
  it('gets the credential the config names, added by the server, and the script gets the answer without it', async () => {
    const api = await startTarget((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        response.statusCode = 401;
        return void response.end('no token');
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ login: 'octocat', path: request.path }));
    });
    const { fetcher, lines } = fetcherOf([
      originRule(api.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] }),
    ]);
    const response = await get(fetcher, `${api.origin}/user?page=2`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ login: 'octocat', path: '/user?page=2' });
    expect(response.url).toBe(`${api.origin}/user?page=2`);
    expect(response.redirected).toBe(false);
    expect(api.seen[0]!.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'user-agent': 'codemode-mcp', accept: '*/*' });
    // The log: method, origin, path, status, bytes; never a query, a header's value or a body.
    expect(lines).toEqual([`codemode-mcp: fetch: script abc-1 GET ${api.origin}/user → 200, 41 bytes`]);
  });

  it('replaces the credential wherever an answer echoes it: its headers, its body', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] })]);
    const response = await get(fetcher, `${api.origin}/echo`);
    const text = response.body.toString();
    expect(api.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text).headers.authorization).toBe(`Bearer ${REDACTED}`);
    expect(response.headers).toContainEqual(['x-echo-authorization', `Bearer ${REDACTED}`]);
  });

  it('sends the script own headers, decodes a gzip body, hides Set-Cookie and keeps no cookie for the next request', async () => {
    const api = await startTarget((request, response) => {
      response.setHeader('set-cookie', 'session=kept-nowhere');
      response.setHeader('content-encoding', 'gzip');
      response.end(gzipSync(JSON.stringify({ cookie: request.headers.cookie ?? null, custom: request.headers['x-custom'] })));
    });
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    const first = await get(fetcher, `${api.origin}/a`, { headers: [['x-custom', 'yes']] });
    expect(JSON.parse(first.body.toString())).toEqual({ cookie: null, custom: 'yes' });
    expect(first.headers.map(([name]) => name)).not.toContain('set-cookie');
    const second = await get(fetcher, `${api.origin}/b`);
    expect(JSON.parse(second.body.toString()).cookie).toBeNull();
    expect(api.seen[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('sends a body with the method, and the Host the URL names', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { methods: ['POST'] })]);
    const response = await get(fetcher, `${api.origin}/items`, {
      method: 'POST',
      headers: [['content-type', 'application/json']],
      body: Buffer.from('{"a":1}'),
    });
    expect(JSON.parse(response.body.toString())).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(api.seen[0]!.headers.host).toBe(`127.0.0.1:${api.port}`);
  });
});

describe('refusals, each naming its rule', () => {
  it('an origin the config does not list: FETCH_ORIGIN, naming those it lists and the setting; nothing is sent', async () => {
    const listed = await echoTarget();
    const other = await echoTarget();
    const { fetcher } = fetcherOf([originRule(listed.origin)]);
    const error = await refusal(get(fetcher, `${other.origin}/x`));
    expect(error.code).toBe('FETCH_ORIGIN');
    expect(error.message).toBe(
      `FETCH_ORIGIN: fetch GET ${other.origin}/x was refused: ${other.origin} is not an origin this server fetches ` +
        `(it lists ${listed.origin}); add it to settings.fetch in the config file to allow it. Nothing was sent.`,
    );
    expect(other.seen).toEqual([]);
  });

  it('with no origin listed, every fetch is refused, saying fetch is off', async () => {
    const { fetcher } = fetcherOf([]);
    const error = await refusal(get(fetcher, 'https://api.github.com/user'));
    expect(error.message).toContain('(it lists none: fetch is off); add it to settings.fetch');
  });

  it('another scheme, port or host is another origin', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    for (const url of [
      `https://127.0.0.1:${api.port}/`,
      `http://127.0.0.1:${api.port + 1}/`,
      `http://localhost:${api.port}/`,
      'file:///etc/passwd',
    ]) {
      expect((await refusal(get(fetcher, url))).code).toBe('FETCH_ORIGIN');
    }
    expect(api.seen).toEqual([]);
  });

  it('a method not listed: FETCH_METHOD, naming the methods and the setting', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { methods: ['GET'] })]);
    const error = await refusal(get(fetcher, `${api.origin}/x`, { method: 'DELETE' }));
    expect(error.code).toBe('FETCH_METHOD');
    expect(error.message).toContain(
      `${api.origin} takes GET; add DELETE to settings.fetch in the config file["${api.origin}"].methods`,
    );
    expect(api.seen).toEqual([]);
  });

  it('a path the entry does not allow: FETCH_PATH; * stays within a segment, ** goes across', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { paths: ['/repos/*/issues', '/gists/**'] })]);
    expect((await get(fetcher, `${api.origin}/repos/a/issues`)).status).toBe(200);
    expect((await get(fetcher, `${api.origin}/gists/1/files/x`)).status).toBe(200);
    const error = await refusal(get(fetcher, `${api.origin}/repos/a/b/issues`));
    expect(error.code).toBe('FETCH_PATH');
    expect(error.message).toContain('the path /repos/a/b/issues is not among those');
    // The URL parser resolves dot segments before the path is matched.
    expect((await refusal(get(fetcher, `${api.origin}/gists/../admin`))).code).toBe('FETCH_PATH');
    expect(api.seen).toHaveLength(2);
  });

  it.each([
    ['its own Authorization', [['authorization', 'Bearer mine']], 'FETCH_CREDENTIAL'],
    ['a header the entry sets', [['x-api-key', 'mine']], 'FETCH_CREDENTIAL'],
    ['Host', [['host', 'evil.example']], 'FETCH_HEADER'],
    ['Content-Length', [['content-length', '5']], 'FETCH_HEADER'],
  ] as const)('a script setting %s: %s, nothing sent', async (_what, headers, code) => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { headers: { 'X-Api-Key': 'k-0123456789' } })]);
    const error = await refusal(get(fetcher, `${api.origin}/x`, { headers }));
    expect(error.code).toBe(code);
    expect(error.message).not.toContain('k-0123456789');
    expect(api.seen).toEqual([]);
  });

  it('a user name and password in the URL: FETCH_CREDENTIAL', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    const url = new URL(api.origin);
    url.username = 'me';
    url.password = 'pw';
    expect((await refusal(get(fetcher, url.href))).code).toBe('FETCH_CREDENTIAL');
  });

  it('a URL that is no URL fails as the web does: a TypeError-to-be (FetchFailedError)', async () => {
    const { fetcher } = fetcherOf([]);
    await expect(get(fetcher, '/relative')).rejects.toThrow(
      new FetchFailedError('GET /relative', 'it is not an absolute http:// or https:// URL'),
    );
  });
});

describe('private addresses', () => {
  it('a literal 127.0.0.1 in the entry is refused without allowPrivate: FETCH_PRIVATE, saying what allows it', async () => {
    const api = await echoTarget();
    const { fetcher } = fetcherOf([originRule(api.origin, { allowPrivate: false })]);
    const error = await refusal(get(fetcher, `${api.origin}/x`));
    expect(error.code).toBe('FETCH_PRIVATE');
    expect(error.message).toContain(
      `127.0.0.1 is a loopback address, which a fetch reaches only when settings.fetch["${api.origin}"] says "allowPrivate": true`,
    );
    expect(api.seen).toEqual([]);
  });

  it('a name that resolves to 127.0.0.1 (localhost, by the system resolver) is refused', async () => {
    const api = await echoTarget();
    const origin = `http://localhost:${api.port}`;
    const { fetcher } = fetcherOf([originRule(origin, { allowPrivate: false })]);
    const error = await refusal(get(fetcher, `${origin}/x`));
    expect(error.code).toBe('FETCH_PRIVATE');
    expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(api.seen).toEqual([]);
  });

  it.each([
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['192.168.1.1', 'private'],
  ])('a public-looking name that resolves to %s is refused as %s, with the connection never made', async (address, kind) => {
    const resolve: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const { fetcher } = fetcherOf([originRule('http://api.example.test', { allowPrivate: false })], { resolve });
    const error = await refusal(get(fetcher, 'http://api.example.test/x'));
    expect(error.message).toContain(`api.example.test resolves to ${address}, a ${kind} address`);
  });

  it('a name with one private address among public ones is refused', async () => {
    const resolve: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const { fetcher } = fetcherOf([originRule('http://api.example.test', { allowPrivate: false })], { resolve });
    expect((await refusal(get(fetcher, 'http://api.example.test/'))).code).toBe('FETCH_PRIVATE');
  });

  it('with allowPrivate, the connection goes to the address the lookup checked', async () => {
    const api = await echoTarget();
    const asked: string[] = [];
    const resolve: Resolver = async (host) => {
      asked.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const origin = `http://api.example.test:${api.port}`;
    const { fetcher } = fetcherOf([originRule(origin, { allowPrivate: true })], { resolve });
    const response = await get(fetcher, `${origin}/via-lookup`);
    expect(response.status).toBe(200);
    expect(asked).toEqual(['api.example.test']);
    expect(api.seen[0]!.headers.host).toBe(`api.example.test:${api.port}`);
  });
});

describe('redirects', () => {
  it('to another listed origin: followed, with that origin credentials only; the first credential never goes there', async () => {
    const second = await startTarget((request, response) => {
      response.end(
        JSON.stringify({ authorization: request.headers.authorization ?? null, key: request.headers['x-key'] ?? null }),
      );
    });
    const first = await startTarget((_request, response) => {
      response.statusCode = 302;
      response.setHeader('location', `${second.origin}/landed`);
      response.end('moved');
    });
    const { fetcher } = fetcherOf([
      originRule(first.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] }),
      originRule(second.origin, { headers: { 'X-Key': 'second-key-123' } }),
    ]);
    const response = await get(fetcher, `${first.origin}/start`);
    expect(JSON.parse(response.body.toString())).toEqual({ authorization: null, key: 'second-key-123' });
    expect(response.url).toBe(`${second.origin}/landed`);
    expect(response.redirected).toBe(true);
    expect(second.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('to an origin not listed: FETCH_REDIRECT, and that server never gets a request', async () => {
    const elsewhere = await echoTarget();
    const first = await startTarget((_request, response) => {
      response.statusCode = 307;
      response.setHeader('location', `${elsewhere.origin}/steal`);
      response.end();
    });
    const { fetcher } = fetcherOf([
      originRule(first.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] }),
    ]);
    const error = await refusal(get(fetcher, `${first.origin}/start`));
    expect(error.code).toBe('FETCH_REDIRECT');
    expect(error.message).toContain(
      `${first.origin}/start redirected to ${elsewhere.origin}, which settings.fetch in the config file does not list`,
    );
    expect(error.message).toContain('fetch(url, {redirect: "manual"}) gives the script the redirect itself');
    expect(elsewhere.seen).toEqual([]);
  });

  it('with redirect: "manual" the script gets the 3xx itself; with "error" it fails', async () => {
    const first = await startTarget((_request, response) => {
      response.statusCode = 301;
      response.setHeader('location', 'https://elsewhere.example/');
      response.end('see there');
    });
    const { fetcher } = fetcherOf([originRule(first.origin)]);
    const manual = await get(fetcher, `${first.origin}/`, { redirect: 'manual' });
    expect(manual.status).toBe(301);
    expect(manual.headers).toContainEqual(['location', 'https://elsewhere.example/']);
    expect(manual.body.toString()).toBe('see there');
    await expect(get(fetcher, `${first.origin}/`, { redirect: 'error' })).rejects.toBeInstanceOf(FetchFailedError);
  });

  it('a 303 after a POST is a GET without the body; a redirect loop stops after the web limit', async () => {
    const api = await startTarget((request, response) => {
      if (request.path === '/form') {
        response.statusCode = 303;
        response.setHeader('location', '/done');
        return void response.end();
      }
      if (request.path.startsWith('/loop')) {
        response.statusCode = 302;
        response.setHeader('location', `/loop${request.path.length}`);
        return void response.end();
      }
      response.end(`${request.method} ${request.body.length} ${request.headers['content-type'] ?? 'no type'}`);
    });
    const { fetcher } = fetcherOf([originRule(api.origin, { methods: ['GET', 'POST'] })]);
    const done = await get(fetcher, `${api.origin}/form`, {
      method: 'POST',
      headers: [['content-type', 'text/plain']],
      body: Buffer.from('x=1'),
    });
    expect(done.body.toString()).toBe('GET 0 no type');
    await expect(get(fetcher, `${api.origin}/loop`)).rejects.toThrow(`more than ${FETCH_REDIRECTS_MAX} redirects`);
  });
});

describe('limits', () => {
  it('a 50 MB body is cut past fetchMaxBytes without being held: FETCH_TOO_LARGE, saying the request was sent', async () => {
    let written = 0;
    const api = await startTarget((_request, response) => {
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const write = (): void => {
        while (written < 50 * 1000 * 1000) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', write);
        }
        response.end();
      };
      response.on('close', () => response.destroy());
      write();
    });
    const { fetcher } = fetcherOf([originRule(api.origin)], { maxBytes: 1 * MiB });
    const error = await refusal(get(fetcher, `${api.origin}/big`));
    expect(error.code).toBe('FETCH_TOO_LARGE');
    expect(error.message).toContain('its body went past 1048576 bytes, past fetchMaxBytes (1 MiB); ask for less');
    expect(error.message).toContain('The request was sent and may have taken effect');
    // Reading stopped at the cap: the server could not send the rest.
    expect(written).toBeLessThan(50 * 1000 * 1000);
  });

  it('a body whose Content-Length is past the cap is refused before it is read; a gzip that expands past it is cut', async () => {
    const api = await startTarget((request, response) => {
      if (request.path === '/declared') {
        response.setHeader('content-length', String(50 * 1000 * 1000));
        response.write('only the start');
        return;
      }
      response.setHeader('content-encoding', 'gzip');
      response.end(gzipSync(Buffer.alloc(8 * MiB)));
    });
    const { fetcher } = fetcherOf([originRule(api.origin)], { maxBytes: 1 * MiB });
    expect((await refusal(get(fetcher, `${api.origin}/declared`))).message).toContain('its Content-Length is 50000000 bytes');
    expect((await refusal(get(fetcher, `${api.origin}/bomb`))).message).toContain('its body went past 1048576 bytes');
  });

  it('a slow drip past fetchTimeoutMs is aborted and fails, saying it may have taken effect', async () => {
    const api = await startTarget((_request, response) => {
      response.write('a');
      const drip = setInterval(() => response.write('a'), 20);
      response.on('close', () => clearInterval(drip));
    });
    const { fetcher } = fetcherOf([originRule(api.origin)], { timeoutMs: 300 });
    await expect(get(fetcher, `${api.origin}/drip`)).rejects.toThrow(
      new FetchFailedError(
        `GET ${api.origin}/drip`,
        'no whole answer within 300 ms (fetchTimeoutMs); the request was aborted and may have taken effect',
      ),
    );
  });

  it(`100 requests of one script at once: all answered, never more than ${FETCH_IN_FLIGHT_PER_SCRIPT} out`, async () => {
    const held: Array<() => void> = [];
    let received = 0;
    const api = await startTarget((request, response) => {
      received++;
      held.push(() => response.end(request.path));
      // Answer once as many are out as the bound lets through, or once every request has come.
      if (held.length === FETCH_IN_FLIGHT_PER_SCRIPT || received === 100) for (const answer of held.splice(0)) answer();
    });
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get(fetcher, `${api.origin}/${i}`)));
    expect(answers.map((answer) => answer.body.toString())).toEqual(Array.from({ length: 100 }, (_, i) => `/${i}`));
    expect(api.open.most).toBe(FETCH_IN_FLIGHT_PER_SCRIPT);
  });

  it(`a principal's scripts together never have more than ${FETCH_IN_FLIGHT_PER_PRINCIPAL} out`, async () => {
    const scripts = Math.ceil(FETCH_IN_FLIGHT_PER_PRINCIPAL / FETCH_IN_FLIGHT_PER_SCRIPT) + 1;
    const total = scripts * FETCH_IN_FLIGHT_PER_SCRIPT;
    const held: Array<() => void> = [];
    let received = 0;
    const api = await startTarget((_request, response) => {
      received++;
      held.push(() => response.end('ok'));
      if (held.length === FETCH_IN_FLIGHT_PER_PRINCIPAL || received === total) for (const answer of held.splice(0)) answer();
    });
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    await Promise.all(
      Array.from({ length: total }, (_, i) => get(fetcher, `${api.origin}/${i}`, {}, { ...party, script: `s-${i % scripts}` })),
    );
    expect(api.open.most).toBe(FETCH_IN_FLIGHT_PER_PRINCIPAL);
  });

  it('a fetch waiting for a place is dropped when its script ends', async () => {
    const api = await startTarget(() => {});
    const { fetcher } = fetcherOf([originRule(api.origin)]);
    const ended = new AbortController();
    const answers = Array.from({ length: FETCH_IN_FLIGHT_PER_SCRIPT + 1 }, (_, i) =>
      fetcher.fetch(order(`${api.origin}/${i}`), party, ended.signal).then(
        () => 'answered',
        () => 'ended',
      ),
    );
    await until(() => api.seen.length === FETCH_IN_FLIGHT_PER_SCRIPT);
    ended.abort(new Error('the script ended'));
    expect(await Promise.all(answers)).toEqual(Array(FETCH_IN_FLIGHT_PER_SCRIPT + 1).fill('ended'));
    expect(api.seen).toHaveLength(FETCH_IN_FLIGHT_PER_SCRIPT);
  });
});

async function until(check: () => boolean): Promise<void> {
  const { until: wait } = await import('../support/waiting.js');
  await wait('the requests to arrive', () => check() || undefined);
}
