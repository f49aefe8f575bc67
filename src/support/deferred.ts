/**
 * A promise settled from outside its executor: an end, a first signal, a first look, each marked
 * by whoever sees it happen. Node 20 has no `Promise.withResolvers` (Node 22 does).
 */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  /** Settles the promise with `value`; any later call does nothing. */
  readonly resolve: (value: T) => void;
  /** Settles the promise with `reason`; any later call does nothing. */
  readonly reject: (reason: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}
