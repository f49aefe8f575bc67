/**
 * One upstream server as the config hands it over: src/config's type, with a name for each kind.
 */
import type { UpstreamSpec } from '../config/types.js';

export type { ToolPolicy, UpstreamSpec } from '../config/types.js';

export type StdioUpstreamSpec = Extract<UpstreamSpec, { transport: 'stdio' }>;

/** `http` tries Streamable HTTP and falls back to SSE on a 4xx; `sse` goes straight to SSE. */
export type RemoteUpstreamSpec = Exclude<UpstreamSpec, StdioUpstreamSpec>;
