/**
 * A fetch call's arguments as the parent admits them: exactly what prelude/fetch.ts makes, and
 * nothing else (anything else, from a child that broke the protocol, is a breach).
 */
import { describe, expect, it } from 'vitest';
import { fetchRequest } from '../../src/script-host/fetch-request.js';

const honest = {
  url: 'https://api.example/x?y=1',
  method: 'POST',
  headers: [['content-type', 'text/plain']],
  redirect: 'follow',
  body: 'hi',
};

describe('a fetch call as the parent admits it', () => {
  it('takes what the prelude sends, a body as text or as base64', () => {
    expect(fetchRequest(honest)).toEqual({
      url: 'https://api.example/x?y=1',
      method: 'POST',
      headers: [['content-type', 'text/plain']],
      body: { text: 'hi' },
      redirect: 'follow',
      label: 'fetch POST https://api.example/x?y=1',
    });
    const { body: _body, ...rest } = honest;
    expect(fetchRequest({ ...rest, bodyBase64: 'AAH/' })?.body).toEqual({ base64: 'AAH/' });
    expect(fetchRequest({ ...rest, method: 'GET' })).not.toHaveProperty('body');
  });

  it.each([
    ['an unknown field', { ...honest, cache: 'no-store' }],
    ['a lower-case method', { ...honest, method: 'post' }],
    ['a method that is no token', { ...honest, method: 'GET X' }],
    ['a redirect mode it lacks', { ...honest, redirect: 'always' }],
    ['a header name in capitals', { ...honest, headers: [['Content-Type', 'x']] }],
    ['a header value with a line break', { ...honest, headers: [['a', 'b\r\nhost: evil']] }],
    ['a header value with a space at its end', { ...honest, headers: [['a', 'b ']] }],
    [
      'a header twice',
      {
        ...honest,
        headers: [
          ['a', '1'],
          ['a', '2'],
        ],
      },
    ],
    ['a header that is no pair', { ...honest, headers: [['a']] }],
    ['both bodies', { ...honest, bodyBase64: 'AA==' }],
    ['base64 that is not', { ...honest, body: undefined, bodyBase64: 'not base64!' }],
    ['a url that is no string', { ...honest, url: 5 }],
  ])('refuses %s', (_what, args) => {
    expect(fetchRequest(JSON.parse(JSON.stringify(args)) as Record<string, unknown>)).toBeNull();
  });
});
