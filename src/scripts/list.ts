import type { ScriptStatus } from '../script-host/types.js';

export interface ListedScript {
  readonly id: string;
  readonly status: ScriptStatus;
  readonly runningForMs: number;
  readonly endedAgoMs: number | null;
  /** Someone has read this script's ending. */
  readonly endingReturned: boolean;
  /** A call is watching it now. */
  readonly watched: boolean;
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
