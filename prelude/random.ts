/**
 * Math.random, reseeded for each script: the engine's own generator is seeded once, when the
 * prelude is built, so every script restored from the snapshot would draw the same numbers.
 * xoshiro128**, seeded from the host's crypto random bytes.
 */
export class Random {
  private readonly state = new Uint32Array(4);

  seed(words: readonly number[]): void {
    for (let i = 0; i < 4; i++) this.state[i] = (words[i] ?? 0) >>> 0;
    if (this.state.every((word) => word === 0)) this.state[0] = 1;
  }

  /** A double in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  install(): void {
    Object.defineProperty(Math, 'random', { value: () => this.next(), writable: true, configurable: true });
  }

  private nextUint32(): number {
    const s = this.state;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2] = s[2]! ^ s[0]!;
    s[3] = s[3]! ^ s[1]!;
    s[1] = s[1]! ^ s[2]!;
    s[0] = s[0]! ^ s[3]!;
    s[2] = s[2]! ^ t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
