/**
 * What `codemode-mcp tools` prints: each tool a script may call, with its summary and
 * declaration (and, for a tool whose calls ask a person first, that and why), then the tools the config denies.
 * A person reads it on a terminal, so what the upstreams wrote is shown with its acting characters
 * escaped (revealControls): a tool's name on its own line, and its text with only its own newlines kept.
 */

import { CONTENT_TYPE } from '../../common/content-blocks.js';
import { revealControls } from '../support/echo.js';
import { declarationOf } from './declaration.js';
import { summarize } from '../../common/summary.js';
import type { CatalogTool } from './types.js';

/**
 * `failed`: the upstreams that could not start, named in the first line since their tools are
 * missing; `tokens`: with tokenize on, the line on tokens the description carries too.
 */
export function renderTools(tools: readonly CatalogTool[], failed: readonly string[] = [], tokens?: string): string {
  const allowed = tools.filter((t) => t.allowed);
  const denied = tools.filter((t) => !t.allowed);
  const servers = new Set(tools.map((t) => t.server)).size;
  const missing = failed.length > 0 ? `; not from ${failed.map((name) => `"${name}"`).join(', ')}, which could not start` : '';

  const asking = allowed.filter((t) => t.approval === 'ask').length;
  const head = `${count(allowed.length, 'tool')} callable from scripts as tools["name"](args), from ${count(servers, 'server')}${missing}${
    asking > 0 ? `; ${asking} ask${asking === 1 ? 's' : ''} a person before each call` : ''
  }${denied.length > 0 ? `; ${denied.length} denied by the config` : ''}.${tokens !== undefined ? `\n${tokens}` : ''}`;
  const sections = [allowed.length > 0 ? `${head}\n${CONTENT_TYPE}` : head];

  for (const tool of allowed) {
    const summary = summarize(tool.description);
    const asks =
      tool.approval === 'ask' ? `\n// approval: ask, a person approves each call first (${tool.approvalWhy ?? 'config'})` : '';
    sections.push(
      `== ${revealControls(tool.name)}${summary ? ` — ${summary}` : ''}  ${originOf(tool)}${asks}\n${declarationOf(tool)}`,
    );
  }
  if (denied.length > 0) {
    const lines = denied.map(
      (t) => `  ${revealControls(t.name)}  ${originOf(t)}${t.approval === 'deny' ? `  (${t.approvalWhy ?? 'approvals'})` : ''}`,
    );
    sections.push(`Denied by the config (not callable, and not named to the model):\n${lines.join('\n')}`);
  }
  return revealControls(`${sections.join('\n\n')}\n`, 'lines');
}

function originOf(tool: CatalogTool): string {
  return `[server ${JSON.stringify(tool.server)}, tool ${JSON.stringify(tool.upstreamName)}]`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
