/**
 * A signal that aborts after `ms` with a TimeoutError, as AbortSignal.timeout's does, but held by
 * its timer until then. Node 20 holds AbortSignal.timeout's signal only weakly: one whose only
 * holder is an AbortSignal.any composite can be collected, and then the composite never aborts
 * (a fetch past fetchTimeoutMs waited forever in a loaded test run; Node 22 keeps it). The timer
 * is unref'd, as AbortSignal.timeout's is: it holds no process up.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
