import type { JSValueHandle } from 'quickjs-wasi';

/**
 * The script's rejected promises that nothing has handled yet, by the promise's identity: QuickJS
 * reports each rejection, and again when a handler is attached later.
 */
export class UnhandledRejections {
  private readonly unhandled = new Map<number, JSValueHandle>();

  track(promise: JSValueHandle, reason: JSValueHandle, isHandled: boolean): void {
    const key = promise.identity;
    const known = this.unhandled.get(key);
    if (isHandled) {
      known?.dispose();
      this.unhandled.delete(key);
    } else if (!known) {
      this.unhandled.set(key, reason.dup());
    }
  }

  /**
   * Prints each rejection nothing ever handled, as a browser console would, and forgets them.
   * `format` prints a reason (and disposes it); `write` is the script's output.
   */
  report(format: (reason: JSValueHandle) => string, write: (text: string) => void): void {
    for (const reason of this.unhandled.values()) {
      let text: string;
      try {
        text = format(reason);
      } catch {
        text = '(a rejection that could not be printed)';
      }
      write(`Uncaught (in promise) ${text}\n`);
    }
    this.unhandled.clear();
  }
}
