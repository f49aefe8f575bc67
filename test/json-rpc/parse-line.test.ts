import { describe, expect, test } from 'vitest';
import { ECHO_MAX_CHARS, describeFound, describeInput, describeType, quoteInput, valueType } from '../../src/support/echo.js';
import { parseLine } from '../../src/json-rpc/parse-line.js';

describe('parseLine', () => {
  test('a JSON-RPC message the SDK accepts comes back as the message', () => {
    expect(parseLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      kind: 'message',
      message: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(parseLine('{"jsonrpc":"2.0","id":"a","result":{}}')).toMatchObject({ kind: 'message' });
  });

  test("a line that is not JSON is reported with the parser's reason", () => {
    expect(parseLine('hello')).toEqual({ kind: 'not-json', problem: expect.stringMatching(/not valid JSON/) });
  });

  test.each([
    ['{"_meta":{"progressToken":{}}}', 'params._meta.progressToken must be a string or a number; got an object'],
    ['{"_meta":{"progressToken":1.5}}', 'params._meta.progressToken must be a string or a whole number; got number 1.5'],
    ['"x"', 'params must be an object; got "x"'],
  ])('a request with params %s is reported with its id, its role and the field', (params, problem) => {
    expect(parseLine(`{"jsonrpc":"2.0","id":5,"method":"ping","params":${params}}`)).toMatchObject({
      kind: 'not-json-rpc',
      id: 5,
      role: 'request',
      problem,
    });
  });

  test('a response whose result is not an object is reported with its id, so its call can fail at once', () => {
    expect(parseLine('{"jsonrpc":"2.0","id":"c1","result":null}')).toMatchObject({
      kind: 'not-json-rpc',
      id: 'c1',
      role: 'response',
      problem: 'result must be an object; got null',
    });
  });

  test('keys the message may not have are named, each quote cut', () => {
    const parsed = parseLine(`{"jsonrpc":"2.0","id":1,"method":"ping","${'k'.repeat(1_000)}":1}`);
    expect(parsed).toMatchObject({ kind: 'not-json-rpc', role: 'request' });
    expect(parsed.kind === 'not-json-rpc' && parsed.problem).toBe(
      `the message has a field it may not have: ${quoteInput('k'.repeat(1_000))}`,
    );
  });

  test('JSON that is no message at all has no role', () => {
    expect(parseLine('[1,2]')).toMatchObject({ kind: 'not-json-rpc', id: undefined, role: undefined });
    expect(parseLine('{"id":3}')).toMatchObject({ kind: 'not-json-rpc', id: 3, role: undefined });
  });
});

describe('quoting client input', () => {
  test('short input is quoted whole; long input is cut with its length', () => {
    expect(quoteInput('get-sum')).toBe('"get-sum"');
    expect(quoteInput('a'.repeat(1_000_000))).toBe(`"${'a'.repeat(ECHO_MAX_CHARS)}…" (1,000,000 characters)`);
  });

  test('any value is described in a phrase', () => {
    expect([undefined, null, [], {}, 1.5, true].map(describeInput)).toEqual([
      'nothing',
      'null',
      'an array',
      'an object',
      'number 1.5',
      'boolean true',
    ]);
  });

  test("a value's type is named in a word, or with its article, the same for every describer", () => {
    const values = [undefined, null, [], {}, 'x', 1.5, true];
    expect(values.map(valueType)).toEqual(['undefined', 'null', 'array', 'object', 'string', 'number', 'boolean']);
    expect(values.map(describeType)).toEqual(['nothing', 'null', 'an array', 'an object', 'a string', 'a number', 'a boolean']);
    expect(values.map(describeFound)).toEqual(['nothing', 'null', 'an array', 'an object', '"x"', 'a number', 'a boolean']);
  });
});
