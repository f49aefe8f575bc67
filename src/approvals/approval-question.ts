/**
 * The question a person is asked before a tool's calls go upstream (issue 27), as an MCP
 * elicitation form, and what their answer decides. Pure: no I/O, no clock.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { formatBytesRoughly, groupThousands } from '../../common/format-numbers.js';

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
  /** `declined`: deny chosen, or the form declined; `dismissed`: closed without an answer. */
  | { readonly kind: 'deny'; readonly how: 'declined' | 'dismissed' }
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

/** `{"path":"a.txt"}`, or past APPROVAL_ARGS_SHOWN_CHARS its start and `… (12 KiB in all)`. */
export function summarizeArgs(json: string): string {
  if (json.length <= APPROVAL_ARGS_SHOWN_CHARS) return json;
  return `${json.slice(0, APPROVAL_ARGS_SHOWN_CHARS)}… (${formatBytesRoughly(Buffer.byteLength(json))} in all)`;
}

/** `fs__delete_file({"path":"a.txt"})`: a call as a question or an answer names it. */
export function describeCall(tool: string, json: string): string {
  return `${tool}(${summarizeArgs(json)})`;
}

/** The elicitation request that asks a person about the waiting calls of one tool. */
export function approvalRequest(question: ApprovalQuestion): ElicitRequest {
  const { tool, calls } = question;
  const count = calls.length === 1 ? 'a call' : `${groupThousands(calls.length)} calls`;
  const title = tool.title !== undefined && tool.title !== tool.name ? ` ("${tool.title}")` : '';
  const shown = calls.slice(0, APPROVAL_CALLS_SHOWN).map((json) => `- ${describeCall(tool.name, json)}`);
  const more = calls.length - shown.length;
  const message = [
    `${capitalize(question.asker)} wants to make ${count} of ${tool.name}${title}, which asks for your approval.`,
    `Annotations: ${describeHints(tool.annotations)}.`,
    ...shown,
    ...(more > 0 ? [`- and ${groupThousands(more)} more calls of it`] : []),
    `"Allow" covers ${calls.length === 1 ? 'this call' : 'these calls'} and the script's further calls of ${tool.name} in the same batch ` +
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
              { const: 'allow-script', title: `Allow ${tool.name} for the rest of this script` },
              { const: 'allow-owner', title: `Allow ${tool.name} for ${question.owner} for some minutes` },
              { const: 'deny', title: calls.length === 1 ? 'Deny' : 'Deny all' },
              ...(calls.length > 1 ? [{ const: 'review', title: 'Review them one by one' }] : []),
            ],
          },
          minutes: {
            type: 'integer',
            title: `Minutes (with "for ${question.owner}")`,
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

/**
 * What an answer decides. Declined is a denial; cancelled (the form closed) is a denial too, said
 * as dismissed; an accepted form without a known decision is refused the same way, since nothing
 * may be sent on an answer no one gave.
 */
export function readApprovalAnswer(result: ElicitResult): ApprovalDecision {
  if (result.action === 'decline') return { kind: 'deny', how: 'declined' };
  if (result.action !== 'accept') return { kind: 'deny', how: 'dismissed' };
  const content = result.content ?? {};
  switch (content.decision) {
    case 'allow':
      return { kind: 'allow-batch' };
    case 'allow-script':
      return { kind: 'allow-script' };
    case 'allow-owner': {
      const given = content.minutes;
      const minutes = typeof given === 'number' && Number.isFinite(given) ? Math.round(given) : APPROVAL_GRANT_DEFAULT_MINUTES;
      return { kind: 'allow-owner', minutes: Math.min(APPROVAL_GRANT_MAX_MINUTES, Math.max(1, minutes)) };
    }
    case 'deny':
      return { kind: 'deny', how: 'declined' };
    case 'review':
      return { kind: 'review' };
    default:
      return { kind: 'deny', how: 'dismissed' };
  }
}

/** `destructiveHint, not readOnlyHint`, or `none`. */
function describeHints(annotations: AskedTool['annotations']): string {
  const hints = Object.entries(annotations ?? {}).filter(([, value]) => typeof value === 'boolean');
  if (hints.length === 0) return 'none';
  return hints.map(([hint, value]) => (value === true ? hint : `not ${hint}`)).join(', ');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
