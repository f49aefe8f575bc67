import type { Calls } from './calls.js';
import { JSONStringify, ObjectFreeze, TypeErrorConstructor, blank, defineValue, globalObject, newError } from './intrinsics.js';

/**
 * `resources`: list(), templates() and read(uri), the upstreams' resources. Each is a call like a
 * tool call (the same places, caps and errors: ToolRefused when refused unsent, ResultTooLarge);
 * the server routes a read to the upstream that lists the URI or a template matching it.
 */
export function installResources(calls: Calls): void {
  const resources = blank<Record<string, (uri?: unknown) => Promise<unknown>>>();
  resources.list = () => calls.callApi('resources.list', '{}', 'resources.list()');
  resources.templates = () => calls.callApi('resources.templates', '{}', 'resources.templates()');
  resources.read = (uri?: unknown) => {
    // A string only: a URI object's toString or getters would be the script's code in our frame.
    if (typeof uri !== 'string') {
      throw newError(
        TypeErrorConstructor,
        `resources.read(uri): uri must be a string, not ${uri === null ? 'null' : typeof uri}`,
      );
    }
    return calls.callApi('resources.read', `{"uri":${JSONStringify(uri)}}`, 'resources.read(uri)');
  };
  defineValue(globalObject, 'resources', ObjectFreeze(resources));
}
