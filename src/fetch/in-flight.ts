/**
 * How many fetches are out at once, per script and per principal: past a bound a request waits
 * here, in order, until one of the same script or principal ends. It is never refused; a script
 * has at most CALLS_IN_FLIGHT_MAX calls out, so what waits is bounded too.
 */

/** 8: a script's fetches out at once; more wait in the server, in order, and count toward toolCallTimeoutMs meanwhile. */
export const FETCH_IN_FLIGHT_PER_SCRIPT = 8;

/** 32: a principal's fetches out at once, across its scripts and sessions; more wait in the server, in order. */
export const FETCH_IN_FLIGHT_PER_PRINCIPAL = 32;

interface Lane {
  out: number;
  readonly waiting: Array<() => void>;
}

/** Places by key (a principal, a script), each key's lane made on its first use and dropped once empty. */
export class InFlight {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly max: number) {}

  /** Resolves once a place is free, with the function that frees it; rejects when `signal` aborts first. */
  take(key: string, signal: AbortSignal): Promise<() => void> {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { out: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    const held = lane;
    const release = (): void => this.release(key, held);
    if (held.out < this.max) {
      held.out++;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        signal.removeEventListener('abort', abandon);
        held.out++;
        resolve(once(release));
      };
      const abandon = (): void => {
        held.waiting.splice(held.waiting.indexOf(wake), 1);
        this.dropIfIdle(key, held);
        reject(signal.reason);
      };
      if (signal.aborted) {
        this.dropIfIdle(key, held);
        return reject(signal.reason);
      }
      held.waiting.push(wake);
      signal.addEventListener('abort', abandon, { once: true });
    });
  }

  private release(key: string, lane: Lane): void {
    lane.out--;
    const next = lane.waiting.shift();
    if (next !== undefined) next();
    else this.dropIfIdle(key, lane);
  }

  private dropIfIdle(key: string, lane: Lane): void {
    if (lane.out === 0 && lane.waiting.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
