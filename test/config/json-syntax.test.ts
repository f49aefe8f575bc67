import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/config/json-syntax.js';

describe('finding a JSON syntax error', () => {
  it('finds nothing in valid JSON, nested or not', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, "x\\n\\u00e9", true, false, null, {}]} ', '"s"', '0']) {
      expect(findJsonSyntaxError(text)).toBeNull();
    }
  });

  it('agrees with JSON.parse on what is valid', () => {
    const samples = ['{"a":1,}', '[1 2]', "{'a':1}", '{"a" 1}', '{a:1}', '[01]', '"\t"', '"\\x"', '[1]x', '{"a":1', '[', '-', 'tru'];
    for (const text of samples) {
      expect(() => JSON.parse(text)).toThrow();
      expect(findJsonSyntaxError(text)).not.toBeNull();
    }
  });

  it('gives 1-based line and column', () => {
    expect(findJsonSyntaxError('{\n  "a": 1\n  "b": 2\n}')).toEqual({
      line: 3,
      column: 3,
      reason: 'expected "," or "}" after a value (a comma may be missing)',
    });
  });

  it('names single quotes, an unterminated string and a truncated file', () => {
    expect(findJsonSyntaxError("{'a': 1}")?.reason).toBe('expected a property name in double quotes');
    expect(findJsonSyntaxError("['a']")?.reason).toBe('strings must use double quotes in JSON');
    expect(findJsonSyntaxError('{"a": "b}')).toMatchObject({ line: 1, column: 7, reason: 'string is never closed' });
    expect(findJsonSyntaxError('{"a": [1, 2]')).toMatchObject({ line: 1, column: 13, reason: 'unexpected end of file; expected "," or "}"' });
  });

  it('survives 100,000 levels of nesting without overflowing the stack', () => {
    expect(findJsonSyntaxError('['.repeat(100_000) + ']'.repeat(99_999))?.reason).toBe(
      'unexpected end of file; expected "," or "]"',
    );
  });
});
