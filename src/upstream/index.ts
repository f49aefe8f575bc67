export { UpstreamHub, type CallContext, type UpstreamHubOptions } from './hub.js';
export type { LogListener, RelayedRequest, RelayedResult, RequestRelay } from './relay.js';
export type { RemoteUpstreamSpec, StdioUpstreamSpec, ToolPolicy, UpstreamSpec } from './spec.js';
export type { UpstreamState, UpstreamStatus } from './upstream.js';
export { isToolAllowed } from '../config/tool-policy.js';
export { TOOL_NAME_SEPARATOR } from './tool-names.js';
export type { ResourceListing, ResourceRoute, RoutedResource, RoutedTemplate } from './resource-routes.js';
