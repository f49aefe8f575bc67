import type { Host, Limits } from './host';
import { jsonStringify } from './intrinsics';

/** notify(payload): tells the client now; true when sent, false when skipped as too soon. */
export function installNotify(global: Record<string, unknown>, host: Host, limits: Limits): void {
  const notify = (payload: unknown): boolean => {
    let json: string | undefined;
    try {
      json = jsonStringify(payload);
    } catch (error) {
      throw new TypeError(`notify(payload): payload can't become JSON: ${(error as Error).message}`);
    }
    if (json === undefined) throw new TypeError('notify(payload): payload must be a JSON value');
    if (json.length > limits.notifyPayloadMaxChars) {
      throw new RangeError(
        `notify(payload): payload is ${json.length} characters of JSON, past the cap of ${limits.notifyPayloadMaxChars}`,
      );
    }
    const answer = host.notify(json);
    if (answer === '') return true;
    if (answer === 'skipped') return false;
    throw new Error(answer);
  };
  Object.defineProperty(global, 'notify', { value: notify, writable: true, configurable: true });
}
