/**
 * The question a person is asked before a tool's calls go upstream (issue 27), as an MCP
 * elicitation form, and what their answer decides. Pure: no I/O, no clock.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { formatBytesRoughly, groupThousands } from '../../common/format-numbers.js';
import { describeInput, quoteInput, revealControls } from '../support/echo.js';

/** 200: characters of one call's arguments a question or an answer shows; past it they are cut, with the full size. */
export const APPROVAL_ARGS_SHOWN_CHARS = 200;

/** 3: calls a question shows with their arguments; the rest are counted. */
export const APPROVAL_CALLS_SHOWN = 3;

/** 30: the minutes a grant for the session (or principal) lasts unless the person chooses otherwise. */
export const APPROVAL_GRANT_DEFAULT_MINUTES = 30;

/** 1,440 (a day): the longest grant for the session (or principal) a person can give. */
export const APPROVAL_GRANT_MAX_MINUTES = 1_440;

/** What one answer decides for the calls it was asked about. */
export type ApprovalDecision =
  /** These calls, and the script's further calls of the tool in the same batch. */
  | { readonly kind: 'allow-batch' }
  /** Every call of the tool for the rest of this script. */
  | { readonly kind: 'allow-script' }
  /** Every call of the tool by the session (or principal) for `minutes`. */
  | { readonly kind: 'allow-owner'; readonly minutes: number }
  /**
   * `declined`: deny chosen, or the form declined; `dismissed`: closed without an answer;
   * `unreadable`: an answer that allows nothing (a choice the question did not offer, no choice,
   * minutes that are not a number of minutes, content that is not a form's), with what it was.
   */
  | { readonly kind: 'deny'; readonly how: 'declined' }
  | { readonly kind: 'deny'; readonly how: 'dismissed' }
  | { readonly kind: 'deny'; readonly how: 'unreadable'; readonly answer: string }
  /** Ask about each waiting call on its own (offered when several wait). */
  | { readonly kind: 'review' };

/** The tool as the question shows it. */
export interface AskedTool {
  /** As scripts call it. */
  readonly name: string;
  readonly title?: string;
  readonly annotations?: { readonly [hint: string]: unknown };
  /** The upstream server's name in the config, and the tool's name there (the approval page shows both). */
  readonly server?: string;
  readonly upstreamName?: string;
}

export interface ApprovalQuestion {
  readonly tool: AskedTool;
  /** The waiting calls' arguments, as JSON text. */
  readonly calls: readonly string[];
  /** Who asks: `script 1a2b3c-4 of this session`. */
  readonly asker: string;
  /** How the session or principal is named in the choice that allows it for a time: `this session`, `principal alice`. */
  readonly owner: string;
}

/**
 * `{"path":"a.txt"}`, or past APPROVAL_ARGS_SHOWN_CHARS its start and `… (12 KiB in all)`; the
 * characters that would act instead of showing (bidi marks, line separators) escaped.
 */
export function summarizeArgs(json: string): string {
  if (json.length <= APPROVAL_ARGS_SHOWN_CHARS) return revealControls(json);
  return `${revealControls(json.slice(0, APPROVAL_ARGS_SHOWN_CHARS))}… (${formatBytesRoughly(Buffer.byteLength(json))} in all)`;
}

/** `fs__delete_file({"path":"a.txt"})`: a call as a question or an answer names it. */
export function describeCall(tool: string, json: string): string {
  return `${revealControls(tool)}(${summarizeArgs(json)})`;
}

/**
 * The elicitation request that asks a person about the waiting calls of one tool. Everything in
 * it the upstream or the script wrote (the tool's name, title and annotations, the arguments) is
 * shown with its acting characters escaped (revealControls): none of it can add a line to the
 * question or reorder what the person reads.
 */
export function approvalRequest(question: ApprovalQuestion): ElicitRequest {
  const { tool, calls } = question;
  const name = revealControls(tool.name);
  // The owner names a principal, which a tokens file names: shown as safely as the rest.
  const owner = revealControls(question.owner);
  const count = calls.length === 1 ? 'a call' : `${groupThousands(calls.length)} calls`;
  const title = tool.title !== undefined && tool.title !== tool.name ? ` (${quoteInput(tool.title)})` : '';
  const shown = calls.slice(0, APPROVAL_CALLS_SHOWN).map((json) => `- ${describeCall(tool.name, json)}`);
  const more = calls.length - shown.length;
  const message = [
    `${capitalize(revealControls(question.asker))} wants to make ${count} of ${name}${title}, which asks for your approval.`,
    `Annotations: ${describeHints(tool.annotations)}.`,
    ...shown,
    ...(more > 0 ? [`- and ${groupThousands(more)} more calls of it`] : []),
    `"Allow" covers ${calls.length === 1 ? 'this call' : 'these calls'} and the script's further calls of ${name} in the same batch ` +
      '(while some are still out, or until it calls another tool). Nothing is sent until you answer.',
  ].join('\n');
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            oneOf: [
              { const: 'allow', title: calls.length === 1 ? 'Allow once' : `Allow all ${groupThousands(calls.length)}` },
              { const: 'allow-script', title: `Allow ${name} for the rest of this script` },
              { const: 'allow-owner', title: `Allow ${name} for ${owner} for some minutes` },
              { const: 'deny', title: calls.length === 1 ? 'Deny' : 'Deny all' },
              ...(offersReview(calls.length) ? [{ const: 'review', title: 'Review them one by one' }] : []),
            ],
          },
          minutes: {
            type: 'integer',
            title: `Minutes (with "for ${owner}")`,
            minimum: 1,
            maximum: APPROVAL_GRANT_MAX_MINUTES,
            default: APPROVAL_GRANT_DEFAULT_MINUTES,
          },
        },
        required: ['decision'],
      },
    },
  };
}

/** Why an answer of "review" to a question about one call allows nothing. */
export const UNOFFERED_REVIEW = 'its decision was "review", which a question about one call does not offer';

/** "Review them one by one" is offered only when several calls wait. */
function offersReview(calls: number): boolean {
  return calls > 1;
}

/**
 * What an answer to the question about `calls` calls decides. Only an explicit allow that the
 * question offered sends anything: declined is a denial; cancelled (the form closed) is a denial
 * said as dismissed; and an answer that is anything else (no decision, a decision the question did
 * not offer, such as "review" for one call, minutes that are not a number of minutes, content that
 * is not a form's) is a denial said as unreadable, since nothing may be sent on an answer no one gave.
 */
export function readApprovalAnswer(result: ElicitResult, calls: number): ApprovalDecision {
  const answer: unknown = result;
  if (!isRecord(answer)) return unreadable(answer);
  if (answer.action === 'decline') return { kind: 'deny', how: 'declined' };
  if (answer.action === 'cancel') return { kind: 'deny', how: 'dismissed' };
  if (answer.action !== 'accept') return unreadable(answer.action, 'action');
  const { content } = answer;
  if (!isRecord(content)) return unreadable(content, 'content');
  switch (content.decision) {
    case 'allow':
      return { kind: 'allow-batch' };
    case 'allow-script':
      return { kind: 'allow-script' };
    case 'allow-owner': {
      const given = content.minutes;
      if (given === undefined) return { kind: 'allow-owner', minutes: APPROVAL_GRANT_DEFAULT_MINUTES };
      // Fewer minutes than asked for would be safe; more, or none at all, would be a grant no one gave.
      if (typeof given !== 'number' || !Number.isFinite(given) || Math.round(given) < 1) return unreadable(given, 'minutes');
      return { kind: 'allow-owner', minutes: Math.min(APPROVAL_GRANT_MAX_MINUTES, Math.round(given)) };
    }
    case 'deny':
      return { kind: 'deny', how: 'declined' };
    case 'review':
      if (offersReview(calls)) return { kind: 'review' };
      return { kind: 'deny', how: 'unreadable', answer: UNOFFERED_REVIEW };
    default:
      return unreadable(content.decision, 'decision');
  }
}

/** A denial for an answer that allows nothing, saying what it was: `decision was "review"`, `content was an array`. */
function unreadable(value: unknown, field?: string): ApprovalDecision {
  const shown = describeInput(value);
  return {
    kind: 'deny',
    how: 'unreadable',
    answer: field === undefined ? `the answer was ${shown}` : `its ${field} was ${shown}`,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `destructiveHint, not readOnlyHint`, or `none`. */
function describeHints(annotations: AskedTool['annotations']): string {
  const hints = Object.entries(annotations ?? {}).filter(([, value]) => typeof value === 'boolean');
  if (hints.length === 0) return 'none';
  return hints.map(([hint, value]) => (value === true ? revealControls(hint) : `not ${revealControls(hint)}`)).join(', ');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
