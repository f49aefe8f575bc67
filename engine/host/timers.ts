/** setTimeout's own bound: a longer delay would fire at once. */
const MAX_TIMER_MS = 0x7fff_ffff;

/** `setTimer` and `clearTimer`: the script's timers as Node timers, each handed back to `fire` by its id when due. */
export class HostTimers {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private lastTimerId = 0;

  constructor(private readonly fire: (id: number) => void) {}

  set(ms: number): number {
    const id = ++this.lastTimerId;
    const delay = Math.min(Math.max(0, ms), MAX_TIMER_MS);
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.fire(id);
      }, delay),
    );
    return id;
  }

  clear(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  /** The script has ended: none of its timers fires. */
  clearAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
