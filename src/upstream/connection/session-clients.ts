/**
 * The clients made while opening one upstream's session, one per transport tried (Streamable
 * HTTP, then SSE): each with the upstream's notifications and requests wired, and a promise of its
 * end, so that a failed start can wait until every one of them is gone.
 */
import { Client, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/client';
import type { PassthroughNotice } from '../passthrough/passthrough.js';
import { installRelay, type LogListener, type RequestRelay } from '../routing/relay.js';
import { UPSTREAM_VERSION_NEGOTIATION } from './revision.js';
import { deferred } from '../../support/deferred.js';

/** Where a client's news goes once its session exists; before that, nothing listens. */
export interface ClientListener {
  /** `notifications/tools/list_changed`. */
  toolsChanged(): void;
  /** `notifications/resources/list_changed`. */
  resourcesChanged(): void;
  /** The prompt and resource notices relayed to our clients (passthrough.ts). */
  notice(notice: PassthroughNotice): void;
  /** `client`'s connection ended by itself or was closed. */
  ended(client: Client): void;
  /** A transport error on `client`. */
  error(client: Client, error: Error): void;
}

export interface SessionClientsOptions {
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly relay: () => RequestRelay | undefined;
  readonly onLog: LogListener;
}

/** One client's end: a promise that resolves when its connection closed, and whether it has. */
export interface ClientEnd {
  readonly ended: Promise<void>;
  readonly hasEnded: boolean;
}

export class SessionClients {
  listener: ClientListener | undefined;
  private readonly ends = new Map<Client, ClientEnd>();

  constructor(
    private readonly server: string,
    private readonly options: SessionClientsOptions,
  ) {}

  /** A new client, its handlers installed (connectUpstream calls this once per transport tried). */
  readonly create = (): Client => {
    const { clientInfo, capabilities, relay, onLog } = this.options;
    const client = new Client(clientInfo, { capabilities, versionNegotiation: UPSTREAM_VERSION_NEGOTIATION });
    const ended = deferred();
    const end = { ended: ended.promise, hasEnded: false };
    this.ends.set(client, end);
    installRelay(client, this.server, capabilities, relay, onLog);
    client.setNotificationHandler('notifications/tools/list_changed', () => this.listener?.toolsChanged());
    client.setNotificationHandler('notifications/prompts/list_changed', () => this.listener?.notice({ kind: 'prompts_changed' }));
    client.setNotificationHandler('notifications/resources/updated', (notification) =>
      this.listener?.notice({ kind: 'resource_updated', uri: notification.params.uri }),
    );
    client.setNotificationHandler('notifications/resources/list_changed', () => this.listener?.resourcesChanged());
    client.onclose = () => {
      end.hasEnded = true;
      ended.resolve();
      this.listener?.ended(client);
    };
    client.onerror = (error) => this.listener?.error(client, error);
    return client;
  };

  /** The end of a client `create` made. */
  endOf(client: Client): ClientEnd {
    const end = this.ends.get(client);
    if (end === undefined) throw new Error(`upstream "${this.server}": a client this session did not create`);
    return end;
  }

  /** Every client made so far, as promises of their ends. */
  allEnded(): Promise<void>[] {
    return [...this.ends.values()].map(({ ended }) => ended);
  }
}
