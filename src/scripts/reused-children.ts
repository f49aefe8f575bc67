import type { Clock } from './clock.js';

export interface ReuseLimits {
  /** The `childMaxScripts` setting: scripts one child runs before it exits. */
  readonly childMaxScripts: number;
  /** The `childMaxAgeMs` setting: the age past which a child takes no further script. */
  readonly childMaxAgeMs: number;
}

/** What reuse needs of a child: whether its engine is intact, and how many scripts it was given. */
export interface ReusableChild {
  readonly reusable: boolean;
  readonly scripts: number;
}

/**
 * Children kept for their owner's next script, and the rule for keeping one. A child whose script
 * ended with its engine intact, that has run fewer than childMaxScripts and is younger than
 * childMaxAgeMs, is reset (a fresh engine) and kept for the owner (a session, a principal) whose
 * script it ran: it is never handed to another owner. Kept children are ready ones (reset and said
 * `ready` again); a reset under way is `resetting`. Each owner's are taken most recent first (the
 * warmest), and trimmed oldest first.
 */
export class ReusedChildren<Child extends ReusableChild> {
  /** When each child the pool started was born, and whose script it last ran. */
  private readonly born = new Map<Child, number>();
  private readonly owners = new Map<Child, object>();
  /** When each child was last handed a script. */
  private readonly handed = new Map<Child, number>();
  /** Per owner, its kept children, oldest first. */
  private readonly kept = new Map<object, Child[]>();
  private readonly resets = new Set<Child>();
  /** Owners whose session is over (takeAll): a reset that ends after it is not kept. */
  private readonly over = new WeakSet<object>();

  constructor(
    private readonly limits: ReuseLimits,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** Children kept for an owner, ready. */
  get keptCount(): number {
    let count = 0;
    for (const children of this.kept.values()) count += children.length;
    return count;
  }

  /** Children kept for `owner`, ready. */
  keptBy(owner: object): number {
    return this.kept.get(owner)?.length ?? 0;
  }

  /** `owner`'s children being reset now: each is `owner`'s kept child in a few milliseconds. */
  resettingBy(owner: object): number {
    let count = 0;
    for (const child of this.resets) if (this.owners.get(child) === owner) count++;
    return count;
  }

  /** Children kept or being reset: idle, and each some owner's. */
  get idleCount(): number {
    return this.keptCount + this.resets.size;
  }

  /** Children that ran an owner's script and may run its next: running one, being reset, or kept. */
  get ownedCount(): number {
    return this.owners.size;
  }

  /** A child the pool started now. */
  started(child: Child): void {
    this.born.set(child, this.clock.now());
  }

  /** `owner` was handed `child` for a script. */
  took(owner: object, child: Child): void {
    this.owners.set(child, owner);
    this.handed.set(child, this.clock.now());
  }

  /** Whose script `child` last ran, if it ran an owner's. */
  ownerOf(child: Child): object | undefined {
    return this.owners.get(child);
  }

  /** How long ago `child` was last handed a script. */
  sinceHanded(child: Child): number | undefined {
    const handed = this.handed.get(child);
    return handed === undefined ? undefined : this.clock.now() - handed;
  }

  /** How long each of `owner`'s children running a script now has run it (not those kept, or being reset). */
  busyFor(owner: object): number[] {
    const busy: number[] = [];
    for (const [child, of] of this.owners) {
      if (of !== owner || this.resets.has(child) || this.kept.get(owner)?.includes(child)) continue;
      busy.push(this.clock.now() - this.handed.get(child)!);
    }
    return busy;
  }

  /**
   * Whether `child`, whose script has just ended, may take its owner's next script: its engine is
   * intact, it is within childMaxScripts and childMaxAgeMs, and it ran an owner's script.
   */
  mayReuse(child: Child): boolean {
    const born = this.born.get(child);
    return (
      child.reusable &&
      this.owners.has(child) &&
      born !== undefined &&
      child.scripts < this.limits.childMaxScripts &&
      this.clock.now() - born < this.limits.childMaxAgeMs
    );
  }

  /** `child` waits, reset, for its owner's next script. */
  isKept(child: Child): boolean {
    const owner = this.owners.get(child);
    return owner !== undefined && (this.kept.get(owner)?.includes(child) ?? false);
  }

  /** `child` is older than childMaxAgeMs: it takes no further script. */
  pastAge(child: Child): boolean {
    return this.clock.now() - (this.born.get(child) ?? 0) >= this.limits.childMaxAgeMs;
  }

  /** `child` is being reset for its owner. */
  resetting(child: Child): void {
    this.resets.add(child);
  }

  /** `child`'s reset is done: it waits for its owner's next script. False when its owner's session is over meanwhile. */
  keep(child: Child): boolean {
    this.resets.delete(child);
    const owner = this.owners.get(child);
    if (owner === undefined || this.over.has(owner)) return false;
    const children = this.kept.get(owner) ?? [];
    children.push(child);
    this.kept.set(owner, children);
    return true;
  }

  /** The most recently kept child of `owner` that is still young enough, or undefined; those past their age are handed to `tooOld`. */
  take(owner: object, tooOld: (child: Child) => void): Child | undefined {
    const children = this.kept.get(owner);
    if (children === undefined) return undefined;
    let child = children.pop();
    while (child !== undefined && this.clock.now() - this.born.get(child)! >= this.limits.childMaxAgeMs) {
      tooOld(child);
      child = children.pop();
    }
    if (children.length === 0) this.kept.delete(owner);
    return child;
  }

  /** Takes `owner`'s kept children out (its session is over), or every owner's, for the pool to let go. */
  takeAll(owner?: object): Child[] {
    if (owner !== undefined) this.over.add(owner);
    const owners = owner === undefined ? [...this.kept.keys()] : [owner];
    return owners.flatMap((one) => {
      const children = this.kept.get(one) ?? [];
      this.kept.delete(one);
      return children;
    });
  }

  /** Takes kept children out, oldest first across owners, until `keep` are left. */
  trimTo(keep: number): Child[] {
    const all = [...this.kept.values()].flat().sort((a, b) => this.born.get(a)! - this.born.get(b)!);
    const out = all.slice(0, Math.max(0, all.length - keep));
    for (const child of out) this.remove(child);
    return out;
  }

  /** `child` is gone, or was let go: forgotten. */
  forget(child: Child): void {
    this.remove(child);
    this.resets.delete(child);
    this.born.delete(child);
    this.owners.delete(child);
    this.handed.delete(child);
  }

  private remove(child: Child): void {
    const owner = this.owners.get(child);
    if (owner === undefined) return;
    const children = this.kept.get(owner);
    const index = children?.indexOf(child) ?? -1;
    if (index === -1) return;
    children!.splice(index, 1);
    if (children!.length === 0) this.kept.delete(owner);
  }
}
