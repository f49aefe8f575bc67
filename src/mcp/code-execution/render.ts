import { formatBytesRoughly, groupThousands } from '../../../common/format-numbers.js';
import type { ContentBlock } from '../../../common/content-blocks.js';
import { cutText } from '../../script-host/call-label.js';
import type { Shown } from '../../script-host/shown-blocks.js';
import type { CallSummary, OutputSlice, ScriptReturn } from '../../script-host/types.js';
import type { ListedScript } from '../../scripts/owner-scripts.js';

/**
 * A return as the model reads it: `Script <id> <status>`, then the calls (and `approvals`: what
 * waits for a person, what the approval fallback did), the value (or the error), the
 * notifications and the output since the last return.
 */
export function renderReturn(ret: ScriptReturn, approvals: readonly string[] = []): string {
  const lines = [`Script ${ret.script} ${ret.status}`];
  lines.push(...renderCalls(ret.calls, ret.status === 'running'), ...approvals);
  if (ret.error !== undefined) lines.push(`error: ${ret.error}`);
  if (ret.value !== undefined) lines.push(`value: ${ret.value}`);
  for (const payload of ret.notifications) lines.push(`notified: ${payload}`);
  lines.push(...renderShown(ret.shown));
  const output = renderOutput(ret.output);
  if (output !== '') lines.push('output:', output);
  return lines.join('\n');
}

function renderCalls(calls: CallSummary, running: boolean): string[] {
  const unseenCount = calls.unseen.length + sum(calls.unseenMore);
  const parts = [`${calls.answered} answered`];
  const denied = calls.deniedByPerson ?? 0;
  if (calls.refused - denied > 0) parts.push(`${calls.refused - denied} refused (never sent)`);
  if (denied > 0) parts.push(`${denied} denied by a person`);
  if (running && calls.inFlight > 0) parts.push(`${calls.inFlight} in flight`);
  if (unseenCount > 0) parts.push(`${unseenCount} whose answer the script never saw`);
  const lines = [`calls: ${parts.join(', ')}`];
  for (const call of calls.unseen) lines.push(`  ${call.label ?? `${call.tool} ${cutText(call.args)}`}: ${call.fate}`);
  if (sum(calls.unseenMore) > 0) lines.push(`  and more: ${counts(calls.unseenMore)}`);
  if (sum(calls.unsent) > 0) lines.push(`never sent: ${counts(calls.unsent)}`);
  return lines;
}

/** `shown: 2 blocks after this text: image (image/png, 5.5 KiB), resource file:///a.txt`, and what was left out. */
function renderShown(shown: Shown): string[] {
  const lines: string[] = [];
  const count = shown.blocks.length;
  if (count > 0)
    lines.push(`shown: ${count} block${count === 1 ? '' : 's'} after this text: ${shown.blocks.map(describeBlock).join(', ')}`);
  const { blocks, bytes } = shown.leftOut;
  if (blocks > 0) {
    lines.push(
      `not shown: ${blocks} block${blocks === 1 ? '' : 's'} (${formatBytesRoughly(bytes)}), past what one answer carries (the server's showMaxBytes)`,
    );
  }
  return lines;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return `${block.type} (${block.mimeType}, ${formatBytesRoughly(block.data.length)} of base64)`;
    case 'resource':
      return `resource ${block.resource.uri}`;
    case 'resource_link':
      return `resource_link ${block.uri}`;
    default:
      return block.type;
  }
}

export function renderOutput(output: OutputSlice): string {
  if (output.dropped === 0) return output.head + output.tail;
  return `${output.head}\n… ${groupThousands(output.dropped)} characters dropped …\n${output.tail}`;
}

function counts(byTool: Readonly<Record<string, number>>): string {
  return Object.entries(byTool)
    .map(([tool, count]) => `${tool} ×${count}`)
    .join(', ');
}

function sum(byTool: Readonly<Record<string, number>>): number {
  return Object.values(byTool).reduce((total, count) => total + count, 0);
}

/** The list action's text: one line per script, running ones first. */
export function renderList(scripts: readonly ListedScript[]): string {
  const running = scripts.filter((script) => script.status === 'running');
  const ended = scripts.filter((script) => script.status !== 'running');
  const lines = [`Scripts: ${running.length} running, ${ended.length} ended`];
  for (const script of running) {
    lines.push(`${script.id} running for ${seconds(script.runningForMs)}${script.watched ? ', watched by a call now' : ''}`);
  }
  for (const script of ended) {
    const unread = script.endingReturned ? '' : '; its ending is not read yet: wait on it';
    lines.push(
      `${script.id} ${script.status} ${seconds(script.endedAgoMs ?? 0)} ago, after ${seconds(script.runningForMs)}${unread}`,
    );
  }
  return lines.join('\n');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
