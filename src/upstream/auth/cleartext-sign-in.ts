/** No sign-in's tokens go over plain http to another machine unless the entry allows it (config/cleartext.ts). */
import { isCleartextToAnotherHost } from '../../config/cleartext.js';
import type { RemoteUpstreamSpec } from '../spec.js';

/** Whether a sign-in for this upstream would send its tokens over plain http to another machine, which the entry did not allow. */
export function signsInOverCleartext(spec: RemoteUpstreamSpec): boolean {
  return spec.allowInsecureHttp !== true && isCleartextToAnotherHost(spec.url);
}

/** Why no sign-in is made for such an upstream, and what to do. */
export function cleartextSignInRefusal(): string {
  return (
    'its URL is plain http to another machine, where codemode-mcp sends no tokens (bearer tokens go only over TLS, ' +
    'RFC 6750 §5.3); use an https:// URL, or set "allowInsecureHttp": true in its entry if you trust every network between'
  );
}
