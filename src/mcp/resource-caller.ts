import type { ResourceCaller } from '../script-host/types.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';

/**
 * A script's `resources` calls, answered from the hub: the merged lists as the upstreams wrote
 * their entries, and reads routed by URI (resource-routes.ts). `origin`: the session whose script
 * it is, so what an upstream asks while it reads goes there.
 */
export function resourceCaller(hub: UpstreamHub, origin?: CallOrigin): ResourceCaller {
  return async ({ call, uri, label }, signal) => {
    switch (call) {
      case 'resources.list':
        return hub.resources().map(({ resource }) => resource);
      case 'resources.templates':
        return hub.resourceTemplates().map(({ template }) => template);
      case 'resources.read':
        // The script checked it (script.ts): a read always has its URI.
        if (uri === undefined) throw new TypeError(`${label} came without a URI`);
        return hub.readResource(uri, label, signal, origin !== undefined ? { origin } : {});
    }
  };
}
