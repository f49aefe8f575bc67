import { describe, expect, it } from 'vitest';
import { OUTPUT_KEPT_CHARS, OutputWindow } from '../../src/script-host/output-window.js';

describe('the output window', () => {
  it('keeps everything up to twice the kept size', () => {
    const window = new OutputWindow();
    window.append('a'.repeat(OUTPUT_KEPT_CHARS));
    window.append('b'.repeat(OUTPUT_KEPT_CHARS));
    expect(window.take()).toEqual({ head: 'a'.repeat(OUTPUT_KEPT_CHARS), tail: 'b'.repeat(OUTPUT_KEPT_CHARS), dropped: 0 });
  });

  it('counts exactly what it drops between head and tail, across many appends', () => {
    const window = new OutputWindow();
    let all = '';
    for (let i = 0; i < 5_000; i++) {
      const piece = `piece ${i};`;
      all += piece;
      window.append(piece);
    }
    const slice = window.take();
    expect(slice.head).toBe(all.slice(0, OUTPUT_KEPT_CHARS));
    expect(slice.tail).toBe(all.slice(-OUTPUT_KEPT_CHARS));
    expect(slice.dropped).toBe(all.length - 2 * OUTPUT_KEPT_CHARS);
    expect(window.take()).toEqual({ head: '', tail: '', dropped: 0 });
  });
});
