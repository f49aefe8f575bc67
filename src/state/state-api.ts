import type { StateCaller } from '../script-host/apis.js';
import type { Principal, StateStore } from './state-store.js';

/**
 * A script's `store`/`load` calls, answered from the server's state store for one principal (the
 * stdio server's one client, or an HTTP session). What each gives the script's prelude is
 * src/script-host/types.ts's StateCaller: `{value}` or `{}` for a load, so an absent key and a
 * stored `null` stay apart.
 */
export function stateApi(store: StateStore, principal: Principal): StateCaller {
  return async (request) => {
    switch (request.call) {
      case 'state.load': {
        const json = await store.get(principal, request.key);
        return json === undefined ? {} : { value: JSON.parse(json) as unknown };
      }
      case 'state.store': {
        const options = request.ttlMs !== undefined ? { ttlMs: request.ttlMs } : {};
        await store.set(principal, request.key, JSON.stringify(request.value), options);
        return null;
      }
      case 'state.keys':
        return store.keys(principal, request.prefix);
      case 'state.remove':
        return store.remove(principal, request.key);
    }
  };
}
