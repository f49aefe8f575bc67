import { describe, expect, it } from 'vitest';
import { approvalOf } from '../../src/config/approval-policy.js';
import { readFileSettings } from '../../src/config/file-settings.js';
import { parseServerEntry } from '../../src/config/parse-server-entry.js';

const tool = (annotations?: Record<string, unknown>) => ({
  name: 'fs__delete_file',
  upstreamName: 'delete_file',
  ...(annotations !== undefined ? { annotations } : {}),
});

describe('which calls wait for a person', () => {
  it('asks for a tool annotated destructive and not read-only', () => {
    expect(approvalOf(tool({ destructiveHint: true }), undefined, undefined)).toEqual({
      approval: 'ask',
      why: 'destructiveHint',
    });
    expect(approvalOf(tool({ destructiveHint: true, readOnlyHint: false }), undefined, undefined).approval).toBe('ask');
  });

  it('allows a read-only tool, a non-destructive one, and one with no annotations (not MCP default of destructive)', () => {
    expect(approvalOf(tool({ readOnlyHint: true, destructiveHint: true }), undefined, undefined)).toEqual({
      approval: 'allow',
      why: 'readOnlyHint',
    });
    expect(approvalOf(tool({ destructiveHint: false }), undefined, undefined).approval).toBe('allow');
    expect(approvalOf(tool(), undefined, undefined)).toEqual({ approval: 'allow', why: 'no destructiveHint' });
  });

  it("lets the config win over the annotations: the entry's globs over the tool's own name", () => {
    expect(approvalOf(tool({ destructiveHint: true }), { allow: ['delete_*'] }, undefined)).toEqual({
      approval: 'allow',
      why: `the server entry's approvals.allow "delete_*"`,
    });
    expect(approvalOf(tool(), { ask: ['delete_*'] }, undefined).approval).toBe('ask');
    expect(approvalOf(tool(), { ask: ['fs__delete_*'] }, undefined).approval).toBe('allow');
  });

  it('reads settings.approvals over the name scripts call', () => {
    expect(approvalOf(tool(), undefined, { ask: ['fs__*'] })).toEqual({ approval: 'ask', why: 'settings.approvals.ask "fs__*"' });
    expect(approvalOf(tool(), undefined, { deny: ['*delete*'] }).approval).toBe('deny');
  });

  it('takes the most cautious of every glob that matches, entry and settings alike', () => {
    expect(approvalOf(tool(), { allow: ['*'] }, { ask: ['fs__*'] }).approval).toBe('ask');
    expect(approvalOf(tool(), { deny: ['delete_file'] }, { allow: ['*'], ask: ['*'] }).approval).toBe('deny');
    expect(approvalOf(tool({ destructiveHint: true }), { ask: ['x'] }, { allow: ['fs__*'] }).approval).toBe('allow');
  });
});

describe('approvals in the config', () => {
  const context = { file: '/c.json', serversKey: 'mcpServers', env: {}, baseDir: null };

  it("reads a server entry's approvals", () => {
    const spec = parseServerEntry('fs', { command: 'x', approvals: { ask: ['delete_*'], allow: ['read_*'] } }, context);
    expect(spec?.approvals).toEqual({ ask: ['delete_*'], allow: ['read_*'] });
  });

  it('refuses a prefixed glob in an entry, naming the one to write', () => {
    expect(() => parseServerEntry('fs', { command: 'x', approvals: { ask: ['fs__delete_*'] } }, context)).toThrow(
      `mcpServers.fs.approvals.ask[0] is "fs__delete_*", but globs match the tool's own name: write "delete_*"`,
    );
  });

  it('refuses an unknown choice in an entry', () => {
    expect(() => parseServerEntry('fs', { command: 'x', approvals: { confirm: ['x'] } }, context)).toThrow(/approvals/);
  });

  it('reads settings.approvals and approvalFallback', () => {
    const { settings } = readFileSettings({ approvals: { ask: ['*delete*'] }, approvalFallback: 'allow' }, '/c.json');
    expect(settings).toEqual({ approvals: { ask: ['*delete*'] }, approvalFallback: 'allow' });
  });

  it('refuses a bad settings.approvals or approvalFallback, saying what it takes', () => {
    expect(() => readFileSettings({ approvals: { confirm: ['x'] } }, '/c.json')).toThrow(
      'settings.approvals.confirm is not a choice; approvals takes "allow", "ask" and "deny", each a list of globs',
    );
    expect(() => readFileSettings({ approvals: ['x'] }, '/c.json')).toThrow(/must be an object of glob lists/);
    expect(() => readFileSettings({ approvalFallback: 'ask' }, '/c.json')).toThrow(
      'settings.approvalFallback must be "refuse" or "allow" (got "ask")',
    );
  });
});
