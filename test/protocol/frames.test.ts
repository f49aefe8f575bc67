import { describe, expect, it } from 'vitest';
import { FrameDecoder, countJsonValues, encodeFrame, splitFrameBody } from '../../protocol/frames.js';

function decodeAll(decoder: FrameDecoder, bytes: Buffer, pieceSize: number): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += pieceSize) {
    expect(decoder.push(bytes.subarray(at, at + pieceSize), (body) => frames.push(body))).toBe('ok');
  }
  return frames;
}

describe('frames', () => {
  it('decode the same whether they arrive whole or a byte at a time', () => {
    const bytes = Buffer.concat([
      encodeFrame({ t: 'out', text: 'héllo\n' }),
      encodeFrame({ t: 'result', id: 1, kind: 'ok' }, Buffer.from('{"content":[]}')),
    ]);
    for (const pieceSize of [1, 3, bytes.length]) {
      const decoder = new FrameDecoder(1024);
      const frames = decodeAll(decoder, bytes, pieceSize);
      expect(frames.map((body) => splitFrameBody(body).json)).toEqual([
        '{"t":"out","text":"héllo\\n"}',
        '{"t":"result","id":1,"kind":"ok"}',
      ]);
      expect(splitFrameBody(frames[1]!).payload.toString()).toBe('{"content":[]}');
      expect(decoder.idle).toBe(true);
    }
  });

  it('carry a text payload as the UTF-8 bytes of it, the same frame as those bytes would make', () => {
    const text = '{"text":"héllo ✓ 𝄞 \\ud800"}';
    const message = { t: 'end', status: 'finished' };
    const frame = encodeFrame(message, text);
    expect(frame).toEqual(encodeFrame(message, Buffer.from(text, 'utf8')));
    const [body] = decodeAll(new FrameDecoder(1024), frame, frame.length);
    expect(splitFrameBody(body!).payload.toString('utf8')).toBe(text);
  });

  it('refuse a header past the cap before buffering any of its body', () => {
    const decoder = new FrameDecoder(10);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(11, 0);
    expect(decoder.push(header, () => {})).toBe('too_large');
  });
});

describe('countJsonValues', () => {
  it('counts every value and no key', () => {
    expect(countJsonValues('{"a":1,"b":[true,null,"x"],"c":{"d":-2.5e3}}', 100)).toBe(8);
    expect(countJsonValues('"a string with \\" and : inside"', 100)).toBe(1);
    expect(countJsonValues('[ "k" , {"k" : "v"} ]', 100)).toBe(4);
    expect(countJsonValues('{}', 100)).toBe(1);
  });

  it('stops just past the cap', () => {
    expect(countJsonValues(JSON.stringify(new Array(1000).fill(0)), 10)).toBe(11);
  });

  it('agrees with a parse on a generated document', () => {
    const value = { list: Array.from({ length: 50 }, (_, i) => ({ i, name: `n${i}`, tags: ['a', 'b'], ok: i % 2 === 0 })) };
    const count = (v: unknown): number =>
      typeof v === 'object' && v !== null ? 1 + Object.values(v).reduce((n: number, c) => n + count(c), 0) : 1;
    expect(countJsonValues(JSON.stringify(value, null, 2), 1e6)).toBe(count(value));
  });
});
