import { describe, expect, test } from 'vitest';
import { paramHeaderMismatch, paramHeaderValues, scanParamHeaders } from '../../src/support/param-headers.js';

const schema = { properties: { script: { type: 'string', 'x-mcp-header': 'Script' }, code: { type: 'string' } } };
const hello64 = Buffer.from('Hello').toString('base64');

describe("a tool's parameter headers against its body (SEP-2243)", () => {
  test.each([
    ['the same value in both', { 'mcp-param-script': 'abc-1' }, { script: 'abc-1' }],
    ['spaces around the header value', { 'mcp-param-script': '  abc-1  ' }, { script: 'abc-1' }],
    ['Base64, wrapped', { 'mcp-param-script': `=?base64?${hello64}?=` }, { script: 'Hello' }],
    ['Base64 text without the wrapper, taken as it is', { 'mcp-param-script': hello64 }, { script: hello64 }],
    ['neither', {}, { code: 'return 1' }],
  ])('%s passes', (_what, headers, args) => {
    expect(paramHeaderMismatch(headers, schema, args)).toBeUndefined();
  });

  test.each([
    ['a value in the body only', {}, { script: 'abc-1' }, 'the body gives script but the Mcp-Param-Script header is missing'],
    ['a header only', { 'mcp-param-script': 'abc-1' }, {}, 'the Mcp-Param-Script header is given but the body has no script'],
    [
      'two values',
      { 'mcp-param-script': 'abc-2' },
      { script: 'abc-1' },
      "the body's script and the Mcp-Param-Script header disagree",
    ],
    ['bad Base64 padding', { 'mcp-param-script': '=?base64?SGVsbG8?=' }, { script: 'Hello' }, 'is not valid Base64'],
    ['characters outside Base64', { 'mcp-param-script': '=?base64?SGVs!!!bG8=?=' }, { script: 'Hello' }, 'is not valid Base64'],
  ])('%s is refused, saying what to send', (_what, headers, args, message) => {
    expect(paramHeaderMismatch(headers, schema, args)).toContain(message);
  });

  test('a tool whose schema marks no parameter takes any headers', () => {
    expect(paramHeaderMismatch({ 'mcp-param-script': 'x' }, { properties: { script: { type: 'string' } } }, {})).toBeUndefined();
    expect(paramHeaderMismatch({}, undefined, { script: 'x' })).toBeUndefined();
  });

  test.each([
    ['plain ASCII', 'abc-1'],
    ['text that is not ASCII', 'Grüße, 世界'],
    ['spaces at an end', '  padded '],
    ['text that looks Base64-wrapped', '=?base64?SGVsbG8=?='],
  ])('%s, as a client encodes it, passes the check of a server that reads it', (_what, script) => {
    const scan = scanParamHeaders(schema);
    if (!scan.valid) throw new Error(scan.reason);
    const sent = paramHeaderValues(scan.headers, { script });
    const received = Object.fromEntries(Object.entries(sent).map(([name, value]) => [name.toLowerCase(), value]));
    expect(received).toHaveProperty('mcp-param-script');
    expect(paramHeaderMismatch(received, schema, { script })).toBeUndefined();
    expect(paramHeaderMismatch(received, schema, { script: `${script}!` })).toContain('disagree');
  });
});
