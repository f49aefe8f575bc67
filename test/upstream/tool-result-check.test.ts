import { specTypeSchemas } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { UpstreamAnswerError } from '../../src/support/errors.js';
import { checkToolResult } from '../../src/upstream/tools/tool-result-check.js';

const fullSchema = (result: unknown) => specTypeSchemas.CallToolResult['~standard'].validate(result);

describe('the check of a tools/call result', () => {
  it('passes a result of plain text blocks as it came, without the full schema making a copy', () => {
    const result = {
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      isError: false,
      structuredContent: { n: 1 },
    };
    expect(checkToolResult(result, 'up', 'echo')).toBe(result);
  });

  it.each([
    ['plain text', { content: [{ type: 'text', text: 'a' }] }],
    ['no blocks', { content: [] }],
    ['no content at all', {}],
    ['a block with annotations', { content: [{ type: 'text', text: 'a', annotations: { priority: 0.5 } }] }],
    ['a block with an unknown key', { content: [{ type: 'text', text: 'a', extra: 1 }] }],
    ['an image', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
    ['_meta and an unknown key on the result', { content: [], _meta: { a: 1 }, other: true }],
  ])('gives what the full schema gives for %s', (_name, result) => {
    const full = fullSchema(result);
    if (full instanceof Promise || full.issues !== undefined) throw new Error('the full schema should accept this');
    expect(checkToolResult(result, 'up', 'echo')).toEqual(full.value);
  });

  it.each([
    ['a text block without text', { content: [{ type: 'text' }] }],
    ['isError a string', { content: [{ type: 'text', text: 'a' }], isError: 'yes' }],
    ['content not a list', { content: 'a' }],
    ['null', null],
  ])('refuses %s with the full schema’s issues', (_name, result) => {
    expect(() => checkToolResult(result, 'up', 'echo')).toThrow(UpstreamAnswerError);
  });

  // The SDK's schema takes any JSON there, where MCP says an object: an array reached scripts as a success.
  it.each([
    [
      'structuredContent an array',
      { content: [], structuredContent: [1, 2] },
      /structuredContent must be an object; got an array/,
    ],
    ['structuredContent a string', { content: [{ type: 'text', text: 'a' }], structuredContent: 's' }, /got "s"/],
    ['structuredContent null', { content: [{ type: 'text', text: 'a' }], structuredContent: null }, /got null/],
    [
      'structuredContent a number beside an image',
      { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], structuredContent: 3 },
      /got number 3/,
    ],
    ['_meta an array', { content: [], _meta: [] }, /_meta must be an object; got an array/],
  ])('refuses a result with %s, naming the field', (_name, result, message) => {
    expect(() => checkToolResult(result, 'up', 'echo')).toThrow(UpstreamAnswerError);
    expect(() => checkToolResult(result, 'up', 'echo')).toThrow(message);
  });
});
