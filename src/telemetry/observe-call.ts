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
  const made = callMade();
  answer.then(
    (result) => writeCallLine(audit, call, args, script, made, { result }),
    (error: unknown) => writeCallLine(audit, call, args, script, made, { error }),
  );
}

/** When a call was made: the time its line names, and the clock its duration is read by. */
export interface CallMade {
  readonly time: string;
  readonly started: number;
}

/** Now, as the start of a call whose line is written once it ends. */
export function callMade(): CallMade {
  return { time: new Date().toISOString(), started: performance.now() };
}

/**
 * The audit line of a script's call that was refused before anything was sent (a person's
 * denial, the approval fallback, a question no one answered): every call a script attempts has
 * its line, outcome `refused`, the error its code. Nothing with no audit log.
 */
export function auditRefusedCall(
  call: UpstreamCallInfo,
  args: Readonly<Record<string, unknown>>,
  script: NonNullable<CallCaller['script']>,
  made: CallMade,
  error: unknown,
): void {
  const audit = activeAuditLog();
  if (audit !== undefined) writeCallLine(audit, call, args, script, made, { error });
}

function writeCallLine(
  audit: AuditLog,
  call: UpstreamCallInfo,
  args: Readonly<Record<string, unknown>>,
  script: NonNullable<CallCaller['script']>,
  made: CallMade,
  ending: { result: { readonly isError?: boolean } } | { error: unknown },
): void {
  audit.write({
    time: made.time,
    principal: script.principal,
    session: script.session,
    script: script.id,
    ...(call.upstream !== undefined ? { upstream: call.upstream } : {}),
    tool: call.scriptName,
    args: { ...describeText(JSON.stringify(args)), ...(audit.withArguments ? { value: args } : {}) },
    outcome: callOutcome(ending),
    ...('error' in ending ? { error: errorType(ending.error) } : {}),
    durationMs: Math.round(performance.now() - made.started),
  });
}
