import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isEmailAddress } from '../../src/tokenize/find-emails.js';

const isEmail = createRequire(import.meta.url)('validator/lib/isEmail') as (address: string) => boolean;

/** A small seeded generator, so a failure names a case that comes back. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('the email check', () => {
  it("gives validator's isEmail answer for addresses of the characters the scan takes", () => {
    const next = random(48);
    const from = (chars: string, max: number) =>
      Array.from({ length: 1 + Math.floor(next() * max) }, () => chars[Math.floor(next() * chars.length)]).join('');
    const cases = [
      ['ada', 'example.com'],
      ['.ada', 'example.com'],
      ['ada.', 'example.com'],
      ['a..da', 'example.com'],
      ['ada', 'example'],
      ['ada', '-example.com'],
      ['ada', 'example-.com'],
      ['ada', 'example..com'],
      ['ada', 'example.c'],
      ['ada', 'example.c0m'],
      ['ada', 'example.xn--p1ai'],
      ['ada', '1.2.3.4'],
      ['a'.repeat(64), 'example.com'],
      ['a'.repeat(65), 'example.com'],
      ['ada', `${'a'.repeat(63)}.com`],
      ['ada', `${'a'.repeat(64)}.com`],
      ['ada+tag_1%x-y', 'sub.example.co.uk'],
    ];
    for (let i = 0; i < 5_000; i++) cases.push([from('ab9._%+-', 12), from('ab9.-', 14)]);
    const differ = cases.filter(([local, domain]) => isEmailAddress(local!, domain!) !== isEmail(`${local}@${domain}`));
    expect(differ).toEqual([]);
  });
});
