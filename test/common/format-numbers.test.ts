import { describe, expect, it } from 'vitest';
import { formatBytes, formatBytesRoughly, groupThousands } from '../../common/format-numbers.js';

describe('sizes and counts as users read them', () => {
  it('groups thousands with commas', () => {
    expect(groupThousands(0)).toBe('0');
    expect(groupThousands(999)).toBe('999');
    expect(groupThousands(1_000)).toBe('1,000');
    expect(groupThousands(17_825_792)).toBe('17,825,792');
  });

  it('says a size exactly, in the largest unit that divides it', () => {
    expect(formatBytes(2 * 1024 ** 3)).toBe('2 GiB');
    expect(formatBytes(1536 * 1024 ** 2)).toBe('1536 MiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(4 * 1024 ** 2 + 1)).toBe('4194305 bytes');
    expect(formatBytes(0)).toBe('0 bytes');
  });

  it('says a measured size to a tenth of its unit', () => {
    expect(formatBytesRoughly(812)).toBe('812 bytes');
    expect(formatBytesRoughly(5632)).toBe('5.5 KiB');
    expect(formatBytesRoughly(1024 ** 2)).toBe('1.0 MiB');
  });
});
