import { NOTIFY_SKIPPED } from '../common/seam.js';
import { describeThrown } from './errors.js';
import { host, limits } from './host.js';
import {
  ErrorConstructor,
  JSONStringify,
  RangeErrorConstructor,
  TypeErrorConstructor,
  defineValue,
  globalObject,
  newError,
} from './intrinsics.js';

/** notify(payload): tells the client now; true when sent, false when skipped as too soon. */
export function installNotify(): void {
  const notify = (payload: unknown): boolean => {
    let json: unknown;
    try {
      json = JSONStringify(payload);
    } catch (error) {
      throw newError(TypeErrorConstructor, `notify(payload): payload can't become JSON: ${describeThrown(error)}`);
    }
    if (typeof json !== 'string') throw newError(TypeErrorConstructor, 'notify(payload): payload must be a JSON value');
    if (json.length > limits.notifyPayloadMaxChars) {
      throw newError(
        RangeErrorConstructor,
        `notify(payload): payload is ${json.length} characters of JSON, past the cap of ${limits.notifyPayloadMaxChars}`,
      );
    }
    const answer = host.notify(json);
    if (answer === '') return true;
    if (answer === NOTIFY_SKIPPED) return false;
    throw newError(ErrorConstructor, answer);
  };
  defineValue(globalObject, 'notify', notify);
}
