import { describe, expect, test } from 'vitest';
import type { ScriptReturn } from '../../src/script-host/types.js';
import { STRUCTURED_REPEAT_MAX_CHARS, scriptAnswer } from '../../src/mcp/code-execution/answer.js';

function ret(fields: Partial<ScriptReturn>): ScriptReturn {
  return {
    script: 'abc123-1',
    status: 'finished',
    calls: { answered: 0, refused: 0, inFlight: 0, unseen: [], unseenMore: {}, unsent: {} },
    output: { head: '', tail: '', dropped: 0 },
    notifications: [],
    shown: { blocks: [], leftOut: { blocks: 0, bytes: 0 } },
    isError: false,
    ...fields,
  };
}

describe('scriptAnswer', () => {
  test('repeats a small value, output and notifications in structuredContent', () => {
    const answer = scriptAnswer(
      ret({ value: '{"a":1}', output: { head: 'hi\n', tail: '', dropped: 0 }, notifications: ['{"n":1}'] }),
    );
    expect(answer.structuredContent).toMatchObject({
      value: { a: 1 },
      output: { head: 'hi\n', tail: '', dropped: 0 },
      notifications: [{ n: 1 }],
    });
    expect(answer.content).toHaveLength(1);
  });

  test('carries a large value, output and notifications once, in the text, and their sizes in structuredContent', () => {
    const big = JSON.stringify('x'.repeat(STRUCTURED_REPEAT_MAX_CHARS));
    const output = { head: 'y'.repeat(STRUCTURED_REPEAT_MAX_CHARS), tail: 'z', dropped: 7 };
    const answer = scriptAnswer(ret({ value: big, output, notifications: [big] }));
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toContain(`value: ${big}`);
    expect(text).toContain(output.head);
    expect(answer.structuredContent).toEqual({
      script: 'abc123-1',
      status: 'finished',
      calls: { answered: 0, refused: 0, inFlight: 0, unseen: [], unseenMore: {}, unsent: {} },
      valueChars: big.length,
      notifyCount: 1,
      outputChars: output.head.length + 1,
      outputDropped: 7,
    });
    expect(JSON.stringify(answer.structuredContent)).not.toContain('xxxx');
  });

  test('puts shown blocks after the text, and describes them in structuredContent without their data', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    const answer = scriptAnswer(ret({ shown: { blocks: [image], leftOut: { blocks: 2, bytes: 9_000_000 } } }));
    expect(answer.content).toEqual([
      { type: 'text', text: expect.stringContaining('shown: 1 block after this text: image (image/png, 4 bytes of base64)') },
      image,
    ]);
    expect((answer.content[0] as { text: string }).text).toContain(
      "not shown: 2 blocks (8.6 MiB), past what one answer carries (the server's showMaxBytes)",
    );
    expect(answer.structuredContent).toMatchObject({
      shown: [{ type: 'image', mimeType: 'image/png', dataChars: 4 }],
      shownLeftOut: { blocks: 2, bytes: 9_000_000 },
    });
  });
});
