import { MathImul, MathObject, NullProto, Uint32ArrayConstructor, defineValue } from './intrinsics.js';

/**
 * Math.random, reseeded for each script: the engine's own generator is seeded once, when the
 * prelude is built, so every script restored from the snapshot would draw the same numbers.
 * xoshiro128**, seeded from the host's crypto random bytes.
 */
export class Random extends NullProto {
  private readonly state = new Uint32ArrayConstructor(4);

  seed(a: number, b: number, c: number, d: number): void {
    const s = this.state;
    s[0] = a >>> 0;
    s[1] = b >>> 0;
    s[2] = c >>> 0;
    s[3] = d >>> 0;
    if (s[0] === 0 && s[1] === 0 && s[2] === 0 && s[3] === 0) s[0] = 1;
  }

  /** A double in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  install(): void {
    defineValue(MathObject, 'random', () => this.next());
  }

  private nextUint32(): number {
    const s = this.state;
    const result = MathImul(rotl(MathImul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2] = s[2]! ^ s[0]!;
    s[3] = s[3]! ^ s[1]!;
    s[1] = s[1]! ^ s[2];
    s[0] = s[0]! ^ s[3];
    s[2] = s[2] ^ t;
    s[3] = rotl(s[3], 11);
    return result;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
