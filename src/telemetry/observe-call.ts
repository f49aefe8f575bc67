/**
 * One upstream tool call as telemetry and the audit log see it: a client span around the sending
 * (its `traceparent` handed to the request's `_meta`), and, for a script's call, its audit line
 * once it settles. With both off it only sends.
 */
import { activeAuditLog, type AuditLog } from './audit-log.js';
import { callOutcome, describeText, errorType } from './call-outcome.js';
import { activeTelemetry, type TraceContext, type TraceMeta, type UpstreamCallInfo } from './telemetry.js';

/** Who makes a call: the span it is a child of, and, for a script's call, the script and its session. */
export interface CallCaller {
  readonly trace?: TraceContext;
  readonly script?: { readonly id: string; readonly principal: string; readonly session: string };
}

export function observeUpstreamCall<T extends { readonly isError?: boolean }>(
  call: UpstreamCallInfo,
  args: Readonly<Record<string, unknown>>,
  caller: CallCaller | undefined,
  send: (meta: TraceMeta | undefined) => Promise<T>,
): Promise<T> {
  const telemetry = activeTelemetry();
  const audit = caller?.script === undefined ? undefined : activeAuditLog();
  if (!telemetry.on && audit === undefined) return send(undefined);
  const answer = telemetry.upstreamCall(call, caller?.trace, send);
  if (audit !== undefined) auditWhenSettled(audit, call, args, caller!.script!, answer);
  return answer;
}

function auditWhenSettled<T extends { readonly isError?: boolean }>(
  audit: AuditLog,
  call: UpstreamCallInfo,
  args: Readonly<Record<string, unknown>>,
  script: NonNullable<CallCaller['script']>,
  answer: Promise<T>,
): void {
  const time = new Date().toISOString();
  const started = performance.now();
  const json = JSON.stringify(args);
  const write = (ending: { result: T } | { error: unknown }): void =>
    audit.write({
      time,
      principal: script.principal,
      session: script.session,
      script: script.id,
      ...(call.upstream !== undefined ? { upstream: call.upstream } : {}),
      tool: call.scriptName,
      args: { ...describeText(json), ...(audit.withArguments ? { value: args } : {}) },
      outcome: callOutcome(ending),
      ...('error' in ending ? { error: errorType(ending.error) } : {}),
      durationMs: Math.round(performance.now() - started),
    });
  answer.then(
    (result) => write({ result }),
    (error: unknown) => write({ error }),
  );
}
