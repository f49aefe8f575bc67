/**
 * Whose scripts a call reaches: the one connection over stdio, each 2025 session over HTTP, and
 * over HTTP for 2026-07-28 clients, each principal (the name its bearer token gives; without a
 * tokens file, one for every caller). It holds the scripts (made at the first code_execution
 * call, once the child supply exists) and how their tool calls find their way back to the client.
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { ChildSupply } from '../scripts/child-supply.js';
import { OwnerScripts } from '../scripts/owner-scripts.js';
import type { Settings } from '../config/settings.js';
import type { SkillLine } from '../catalog/description.js';
import type { Principal } from '../state/state-store.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';
import type { HostApis } from './host-apis.js';
import { ApprovalGate } from '../approvals/approval-gate.js';
import type { Log } from '../support/log.js';
import type { ApprovalPage } from '../approvals/page/approval-page.js';
import { personChannel } from './approval-person.js';

/** The logger name on our own logging notifications (notify() payloads). */
export const LOGGER_NAME = 'codemode-mcp';

export interface ScriptOwnerOptions {
  readonly hub: UpstreamHub;
  readonly settings: Settings;
  /** The server's script children, once started; undefined before (stdio's first request) or after shutdown began. */
  readonly supply: () => ChildSupply | undefined;
  /** Every host API, bound to this owner when its scripts are made. */
  readonly apis: HostApis;
  /** Whose state these scripts read and write, and who saves their skills. */
  readonly principal: Principal;
  /** The saved skills as last read, for searchTools. */
  readonly savedSkills: () => readonly SkillLine[];
  readonly origin: CallOrigin;
  /** Whose scripts, in messages (`principal alice`); unset, this session. */
  readonly label?: string;
  /** The server's --instance-id, which starts every script id (src/scripts/script-ids.ts). */
  readonly instance?: string;
  /** The server's log. */
  readonly log: Log;
  /** A logging notification to the client (a script's notify()). */
  readonly sendLog: (params: LoggingMessageNotification['params']) => void;
  /** The server's approval page (issue 46); absent, a person is asked only through the client. */
  readonly approvalPage?: ApprovalPage;
  /** Tells the client a URL elicitation is complete (2025 clients only). */
  readonly completeElicitation?: (elicitationId: string) => Promise<void>;
}

export class ScriptOwner {
  private scripts: OwnerScripts | undefined;
  private closing: Promise<Array<{ readonly id: string; readonly status: string }>> | undefined;
  /** Per script (or exposed call made a task), its tool calls now out upstream. */
  private readonly callsOut = new Map<string, number>();

  constructor(private readonly options: ScriptOwnerOptions) {}

  get origin(): CallOrigin {
    return this.options.origin;
  }

  /** The owner's scripts; undefined once closing, or when no supply exists (a shutdown before any start). */
  scriptsNow(): OwnerScripts | undefined {
    if (this.closing !== undefined) return undefined;
    if (this.scripts !== undefined) return this.scripts;
    const supply = this.options.supply();
    if (supply === undefined) return undefined;
    const { hub, settings, origin, principal } = this.options;
    const owner = this.options.label ?? 'this session';
    const approvals = new ApprovalGate({
      // The question travels as an upstream's request would (under our own name), or by the approval page.
      person: personChannel({
        origin,
        asker: LOGGER_NAME,
        via: settings.approvalVia,
        ...(this.options.approvalPage !== undefined ? { page: this.options.approvalPage } : {}),
        ...(this.options.completeElicitation !== undefined ? { complete: this.options.completeElicitation } : {}),
        log: this.options.log,
      }),
      timeoutMs: settings.approvalTimeoutMs,
      fallback: settings.approvalFallback,
      owner,
      log: this.options.log,
    });
    const apis = this.options.apis.forOwner({ principal, label: this.options.label ?? origin.label, origin });
    this.scripts = new OwnerScripts({
      supply: supply.forSession(),
      catalog: () => hub.catalog().tools,
      unlisted: () => hub.unlistedPrefixes(),
      // Counted as the script's while out: what an upstream asks meanwhile is that script's (soleCaller).
      apis: {
        ...apis,
        tools: (name, args, signal, onProgress, caller) =>
          this.track(caller.script?.id, () => apis.tools(name, args, signal, onProgress, caller)),
      },
      savedSkills: this.options.savedSkills,
      settings,
      identity: { principal, session: origin.label },
      ...(this.options.label !== undefined ? { owner: this.options.label } : {}),
      ...(this.options.instance !== undefined ? { instance: this.options.instance } : {}),
      log: (data) => this.options.sendLog({ level: 'info', logger: LOGGER_NAME, data }),
      approvals,
    });
    return this.scripts;
  }

  /**
   * The one script (or task) with tool calls out now, or undefined when none or several have: an
   * upstream's request (elicitation, sampling, roots) comes during one of them, so it is that one's.
   */
  soleCaller(): string | undefined {
    return this.callsOut.size === 1 ? [...this.callsOut.keys()][0] : undefined;
  }

  /** Counts `call` as `script`'s (a script id, or a task's key) while it is out. */
  async track<T>(script: string | undefined, call: () => Promise<T>): Promise<T> {
    if (script === undefined) return call();
    this.callsOut.set(script, (this.callsOut.get(script) ?? 0) + 1);
    try {
      return await call();
    } finally {
      const left = (this.callsOut.get(script) ?? 1) - 1;
      if (left > 0) this.callsOut.set(script, left);
      else this.callsOut.delete(script);
    }
  }

  /** Stops every script (cancelling their calls upstream); resolves with how each running one ended. */
  close(): Promise<Array<{ readonly id: string; readonly status: string }>> {
    this.closing ??= this.scripts?.close() ?? Promise.resolve([]);
    return this.closing;
  }
}
