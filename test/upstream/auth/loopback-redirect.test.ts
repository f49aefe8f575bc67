import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackRedirect, REDIRECT_PATH, type ArrivedRedirect } from '../../../src/upstream/auth/loopback-redirect.js';

const STATE = 'state-of-our-sign-in';
let receiver: LoopbackRedirect | undefined;
let port: number;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function listen(): Promise<LoopbackRedirect> {
  port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
  receiver = await LoopbackRedirect.listen(port, (state) => state === STATE);
  return receiver;
}

/** A real HTTP request to the loopback port: its status and page. */
function send(path: string, method = 'GET'): Promise<{ status: number; page: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, method }, (response) => {
      let page = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (page += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, page }));
    });
    sent.once('error', reject).end();
  });
}

/** The next redirect handed on, or 'none' once every request sent before this has been answered. */
async function handedOn(redirect: LoopbackRedirect): Promise<ArrivedRedirect | 'none'> {
  const aborter = new AbortController();
  const next = redirect.next(aborter.signal).catch(() => 'none' as const);
  // The port answers requests in order: once this one is answered, every earlier one was decided.
  await send('/nothing-here');
  aborter.abort();
  return next;
}

describe('the loopback redirect accepts only a sign-in that carries our exact state', () => {
  it.each([
    ['an error with no state', `${REDIRECT_PATH}?error=access_denied`, 400, 'carries no state'],
    ['an error with an empty state', `${REDIRECT_PATH}?error=access_denied&state=`, 400, 'carries no state'],
    ['an error with another state', `${REDIRECT_PATH}?error=access_denied&state=guess`, 400, 'is not that of a sign-in'],
    ['a code with no state', `${REDIRECT_PATH}?code=abc`, 400, 'carries no state'],
    ['a code with another state', `${REDIRECT_PATH}?code=abc&state=guess`, 400, 'is not that of a sign-in'],
    ['our state twice over', `${REDIRECT_PATH}?code=abc&state=${STATE}&state=${STATE}`, 400, 'state more than once'],
    ['our state and another', `${REDIRECT_PATH}?error=access_denied&state=${STATE}&state=guess`, 400, 'state more than once'],
    ['two codes', `${REDIRECT_PATH}?code=a&code=b&state=${STATE}`, 400, 'code more than once'],
    ['our state and neither code nor error', `${REDIRECT_PATH}?state=${STATE}`, 400, 'neither a code nor an error'],
    ['our state with both a code and an error', `${REDIRECT_PATH}?state=${STATE}&code=a&error=access_denied`, 400, 'both'],
  ])(
    '%s gets a page saying why, and the sign-in goes on waiting; ours still comes through after it',
    async (_what, path, status, why) => {
      const redirect = await listen();
      const answer = await send(path);
      expect(answer.status).toBe(status);
      expect(answer.page).toContain(why);
      expect(answer.page).toContain('still waiting for the sign-in it started');
      expect(await handedOn(redirect)).toBe('none');
      // The real one still comes through afterwards.
      void send(`${REDIRECT_PATH}?error=access_denied&state=${STATE}`);
      const arrived = await redirect.next(AbortSignal.timeout(20_000));
      expect(arrived.params).toEqual({ kind: 'refused', error: 'access_denied', state: STATE });
      arrived.respond(false, 'refused');
    },
  );

  it.each(['POST', 'PUT', 'DELETE'])('%s with our state gets 405 and is not handed on', async (method) => {
    const redirect = await listen();
    const answer = await send(`${REDIRECT_PATH}?error=access_denied&state=${STATE}`, method);
    expect(answer.status).toBe(405);
    expect(answer.page).toContain(`not ${method}`);
    expect(await handedOn(redirect)).toBe('none');
  });

  it('a sign-in that came back once is not handed on again: a replay gets a page saying so', async () => {
    const redirect = await listen();
    const first = send(`${REDIRECT_PATH}?code=abc&state=${STATE}`);
    const arrived = await redirect.next(AbortSignal.timeout(20_000));
    for (const replay of [`${REDIRECT_PATH}?code=abc&state=${STATE}`, `${REDIRECT_PATH}?error=access_denied&state=${STATE}`]) {
      const answer = await send(replay);
      expect(answer.status).toBe(400);
      expect(answer.page).toContain('came back once already');
    }
    expect(await handedOn(redirect)).toBe('none');
    arrived.respond(true, 'signed in');
    expect((await first).status).toBe(200);
  });
});
