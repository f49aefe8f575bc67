import { describe, expect, test } from 'vitest';
import { BoundedLineReader, type OversizeLine } from '../../src/json-rpc/bounded-lines.js';
import { IdScanner, MAX_SCANNED_ID_BYTES } from '../../src/json-rpc/id-scanner.js';

/** Feeds `input` to a reader in pieces of `chunk` bytes and returns what it handed on, in order. */
function read(input: string | Buffer, maxLineBytes: number, chunk = 7): Array<string | OversizeLine> {
  const out: Array<string | OversizeLine> = [];
  const reader = new BoundedLineReader(maxLineBytes, { line: (text) => out.push(text), oversize: (line) => out.push(line) });
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  for (let at = 0; at < bytes.length; at += chunk) reader.push(bytes.subarray(at, at + chunk));
  return out;
}

/** What the scanner reads of `json` fed `chunk` bytes at a time. */
function scan(json: string, chunk = 3): ReturnType<IdScanner['result']> {
  const scanner = new IdScanner();
  const bytes = Buffer.from(json);
  for (let at = 0; at < bytes.length; at += chunk) scanner.push(bytes.subarray(at, at + chunk));
  return scanner.result();
}

const big = (n: number) => 'x'.repeat(n);

describe('BoundedLineReader', () => {
  test('hands on lines split across chunks, without their \\r\\n, skipping blank lines', () => {
    expect(read('{"a":1}\r\n\n  \n{"b":"é"}\n', 100)).toEqual(['{"a":1}', '{"b":"é"}']);
  });

  test('a line over the limit is reported with its length and id, and the next line is read as usual', () => {
    const huge = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"code":"${big(5_000)}"}}`;
    const out = read(`${huge}\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n`, 1_000, 4_096);
    expect(out).toEqual([{ bytes: Buffer.byteLength(huge), id: 7, role: 'request' }, '{"jsonrpc":"2.0","id":8,"method":"ping"}']);
  });

  test('the id is found after a huge params too', () => {
    const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"code":"${big(5_000)}","id":99},"id":"abc"}`;
    expect(read(`${huge}\n`, 1_000)).toEqual([{ bytes: Buffer.byteLength(huge), id: 'abc', role: 'request' }]);
  });

  test('a line exactly at the limit is handed on; one byte more is over it', () => {
    const line = `{"s":"${big(20)}"}`;
    expect(read(`${line}\n`, line.length)).toEqual([line]);
    expect(read(`${line}\n`, line.length - 1)).toEqual([{ bytes: line.length, id: undefined, role: undefined }]);
  });

  test('an incomplete last line is not handed on, and end() says how long it was', () => {
    const out: string[] = [];
    const reader = new BoundedLineReader(100, { line: (text) => out.push(text), oversize: () => out.push('oversize') });
    reader.push(Buffer.from('{"a":1}\n{"b":'));
    expect(reader.end()).toBe(5);
    expect(out).toEqual(['{"a":1}']);
  });

  test('a multi-byte character cut between chunks arrives whole', () => {
    expect(read('{"s":"€€€"}\n', 100, 1)).toEqual(['{"s":"€€€"}']);
  });
});

describe('IdScanner', () => {
  test.each([
    ['{"id":1,"method":"m"}', 1, 'request'],
    ['{"method":"m","id":"a\\"b\\\\c\\u0041"}', 'a"b\\cA', 'request'],
    ['{"method":"m","id":-1.5e3}', -1500, 'request'],
    ['{"method":"m"}', undefined, 'notification'],
    ['{"id":3,"result":{"x":[1,{"id":4}]}}', 3, 'response'],
    ['{"id":3,"error":{"code":1}}', 3, 'response'],
    ['{ "id" : 5 , "method" : "m" }', 5, 'request'],
    ['{"\\u0069d":6,"method":"m"}', 6, 'request'],
    ['{"id":1,"method":"m","id":2}', 2, 'request'],
    ['{"id":null,"method":"m"}', undefined, 'request'],
    ['{"id":{"a":1},"method":"m"}', undefined, 'request'],
    ['{"id":[1],"method":"m"}', undefined, 'request'],
    ['{"params":{"id":1,"method":"m"}}', undefined, undefined],
    ['{"params":"\\"id\\":1, \\"method\\":\\"m\\"","x":"}"}', undefined, undefined],
    ['[{"id":1,"method":"m"}]', undefined, undefined],
    ['"id"', undefined, undefined],
    ['{"id":1,"method":"m"', 1, 'request'],
    ['{"method":"m","params":{"a":"', undefined, 'notification'],
    ['not json at all', undefined, undefined],
  ])('%s gives id %j and role %j', (json, id, role) => {
    expect(scan(json)).toEqual({ id, role });
    expect(scan(json, 1)).toEqual({ id, role });
  });

  test('an id longer than it keeps counts as unreadable, but still makes the line a request', () => {
    expect(scan(`{"method":"m","id":"${big(MAX_SCANNED_ID_BYTES)}"}`)).toEqual({ id: undefined, role: 'request' });
    expect(scan(`{"method":"m","id":"${big(MAX_SCANNED_ID_BYTES - 2)}"}`)).toEqual({
      id: big(MAX_SCANNED_ID_BYTES - 2),
      role: 'request',
    });
  });

  test.each(['\\\\\\"ab', '\\\\\\"a', '\\u0022'])(
    'long strings dense with escapes (%s), cut anywhere, hide no quote from it',
    (piece) => {
      const dense = `"${piece.repeat(400)}"`;
      const json = `{"method":"m","params":{"s":${dense},"t":[${dense}]},"x":${dense},"id":11}`;
      expect((JSON.parse(json) as { id: number }).id).toBe(11);
      for (const chunk of [1, 2, 3, 255, 256, 257, 4_096]) expect(scan(json, chunk)).toEqual({ id: 11, role: 'request' });
    },
  );

  test('an escape that straddles the end of a byte-by-byte run is not taken for the closing quote', () => {
    const content = `${'\\\\'.repeat(127)}a\\\\}}${'\\\\'.repeat(200)}`;
    const json = `{"id":11,"x":"${content}","method":"m"}`;
    expect(JSON.parse(json)).toMatchObject({ id: 11, method: 'm' });
    expect(scan(json, 4_096)).toEqual({ id: 11, role: 'request' });
  });

  test('agrees with JSON.parse on generated messages, however they are cut into chunks', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [
      '"a"',
      '"\\"id\\":9"',
      '"\\\\"',
      '[1,{"id":2}]',
      '{"id":{"id":3}}',
      'true',
      'null',
      '-0.5',
      '"é\\u00e9"',
      '{}',
      '[]',
    ];
    for (let round = 0; round < 300; round += 1) {
      const fields: string[] = [];
      const count = 1 + random(5);
      for (let f = 0; f < count; f += 1) {
        const key = ['id', 'method', 'params', 'result', 'x', 'i\\u0064'][random(6)]!;
        const value = key === 'method' ? '"m"' : random(3) === 0 ? String(random(1000)) : pieces[random(pieces.length)]!;
        fields.push(`${random(2) === 0 ? ' ' : ''}"${key}"${random(2) === 0 ? ' ' : ''}:${value}`);
      }
      const json = `{${fields.join(',')}}`;
      const parsed = JSON.parse(json) as Record<string, unknown>;
      const id = typeof parsed.id === 'string' || typeof parsed.id === 'number' ? parsed.id : undefined;
      const role =
        'method' in parsed ? ('id' in parsed ? 'request' : 'notification') : 'result' in parsed ? 'response' : undefined;
      expect(scan(json, 1 + random(8)), json).toEqual({ id, role });
    }
  });
});
