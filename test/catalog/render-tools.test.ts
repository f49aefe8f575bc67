import { describe, expect, test } from 'vitest';
import { renderTools } from '../../src/catalog/render-tools.js';
import type { CatalogTool } from '../../src/catalog/types.js';
import { ACTING_KINDS, rawActing } from '../support/acting-characters.js';

function toolOf(name: string, server: string, upstreamName: string, allowed = true): CatalogTool {
  return {
    name,
    server,
    upstreamName,
    description: `Does ${upstreamName}.`,
    inputSchema: { type: 'object', properties: {} },
    allowed,
  };
}

describe('renderTools', () => {
  test('names the server and the upstream tool behind each script name', () => {
    const text = renderTools([toolOf('gh__create_issue', 'gh', 'create_issue'), toolOf('fs__read', 'fs', 'read')]);
    expect(text).toContain('2 tools callable from scripts as tools["name"](args), from 2 servers.\n');
    expect(text).toContain(
      '== gh__create_issue — Does create_issue  [server "gh", tool "create_issue"]\n/** Does create_issue. */\ntools["gh__create_issue"](args?: {})',
    );
    expect(text).not.toContain('Denied');
  });

  test('says so when the config denies every tool', () => {
    const text = renderTools([toolOf('rm', 'fs', 'rm', false)]);
    expect(text).toBe(
      '0 tools callable from scripts as tools["name"](args), from 1 server; 1 denied by the config.\n\nDenied by the config (not callable, and not named to the model):\n  rm  [server "fs", tool "rm"]\n',
    );
  });

  test('prints a line even with no tools at all', () => {
    expect(renderTools([])).toBe('0 tools callable from scripts as tools["name"](args), from 0 servers.\n');
  });
});

describe('renderTools with approvals', () => {
  test('says which tools ask a person before each call, and why, and names the approvals that deny', () => {
    const asks: CatalogTool = { ...toolOf('rm', 'fs', 'rm'), approval: 'ask', approvalWhy: 'destructiveHint' };
    const denied: CatalogTool = {
      ...toolOf('wipe', 'fs', 'wipe', false),
      approval: 'deny',
      approvalWhy: 'settings.approvals.deny "wipe"',
    };
    const text = renderTools([asks, toolOf('ls', 'fs', 'ls'), denied]);
    expect(text).toContain(
      '2 tools callable from scripts as tools["name"](args), from 1 server; 1 asks a person before each call; 1 denied by the config.',
    );
    expect(text).toContain(
      '== rm — Does rm  [server "fs", tool "rm"]\n// approval: ask, a person approves each call first (destructiveHint)\n',
    );
    expect(text).toContain('  wipe  [server "fs", tool "wipe"]  (settings.approvals.deny "wipe")');
  });
});

describe('renderTools with hostile text', () => {
  test.each(ACTING_KINDS)('shows %s in what an upstream wrote as its escape, never raw', (_kind, char, shown) => {
    const hostile = (text: string) => `${text}${char}x`;
    const tool: CatalogTool = {
      name: hostile('wipe'),
      server: 'fs',
      upstreamName: hostile('wipe'),
      title: hostile('Wipe'),
      description: `${hostile('Wipes')}. More.\nSecond line ${char}.`,
      inputSchema: { type: 'object', properties: { [hostile('path')]: { type: 'string', description: hostile('the path') } } },
      allowed: true,
      approval: 'ask',
      approvalWhy: 'destructiveHint',
    };
    const denied: CatalogTool = { ...tool, name: hostile('gone'), allowed: false };
    const text = renderTools([tool, denied]);
    expect(rawActing(text, 'lines'), text).toEqual([]);
    expect(text).toContain(`== wipe${shown}x`);
    expect(text).toContain(`  gone${shown}x  [server "fs"`);
    // The text's own lines, and no more: a name or a summary never breaks a line.
    expect(text.split('\n').filter((line) => line.startsWith('== '))).toHaveLength(1);
  });
});
