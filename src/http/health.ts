/**
 * `GET /healthz`: how this instance stands, for a load balancer or a person: each upstream up or
 * down, the sessions open, the script processes running scripts and pooled. 200 while serving,
 * 503 once draining (SIGTERM: no new session or script) or shutting down, so a load balancer sends
 * new work elsewhere.
 */
import type { ServerResponse } from 'node:http';
import type { UpstreamStatus } from '../upstream/connection/upstream.js';

export interface Health {
  readonly instanceId: string | undefined;
  readonly version: string;
  readonly state: 'serving' | 'draining' | 'shutting down';
  readonly upstreams: readonly UpstreamStatus[];
  readonly sessions: number;
  readonly children: { readonly alive: number; readonly pooled: number; readonly max: number };
}

/**
 * The status alone, for a caller without the token (--http-public-health): a load balancer's or
 * a probe's liveness check, which learns nothing else of the instance.
 */
export function sendPublicHealth(res: ServerResponse, state: Health['state']): void {
  send(res, state, JSON.stringify({ status: state }));
}

export function sendHealth(res: ServerResponse, health: Health): void {
  const body = JSON.stringify({
    status: health.state,
    version: health.version,
    ...(health.instanceId !== undefined ? { instance: health.instanceId } : {}),
    upstreams: health.upstreams.map((status) => ({
      name: status.name,
      state: status.state,
      ...(status.toolCount !== undefined ? { tools: status.toolCount } : {}),
      ...(status.reason !== undefined ? { reason: status.reason } : {}),
    })),
    sessions: health.sessions,
    scriptChildren: {
      running: health.children.alive - health.children.pooled,
      pooled: health.children.pooled,
      max: health.children.max,
    },
  });
  send(res, health.state, body);
}

function send(res: ServerResponse, state: Health['state'], body: string): void {
  res.writeHead(state === 'serving' ? 200 : 503, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
