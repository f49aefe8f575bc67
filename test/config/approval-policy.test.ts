import { describe, expect, it } from 'vitest';
import { approvalOf } from '../../src/config/approval-policy.js';
import { readFileSettings } from '../../src/config/file-settings.js';
import { parseServerEntry } from '../../src/config/parse-server-entry.js';
import type { ToolPolicy } from '../../src/config/types.js';

/** A server entry with no allow/deny of its own and these approvals globs. */
const entry = (approvals: Record<string, string[]>) => ({ tools: {}, approvals });

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
    expect(approvalOf(tool({ destructiveHint: true }), entry({ allow: ['delete_*'] }), undefined)).toEqual({
      approval: 'allow',
      why: `the server entry's approvals.allow "delete_*"`,
    });
    expect(approvalOf(tool(), entry({ ask: ['delete_*'] }), undefined).approval).toBe('ask');
    expect(approvalOf(tool(), entry({ ask: ['fs__delete_*'] }), undefined).approval).toBe('allow');
  });

  it('reads settings.approvals over the name scripts call', () => {
    expect(approvalOf(tool(), undefined, { ask: ['fs__*'] })).toEqual({ approval: 'ask', why: 'settings.approvals.ask "fs__*"' });
    expect(approvalOf(tool(), undefined, { deny: ['*delete*'] }).approval).toBe('deny');
  });

  it('takes the most cautious of every glob that matches, entry and settings alike', () => {
    expect(approvalOf(tool(), entry({ allow: ['*'] }), { ask: ['fs__*'] }).approval).toBe('ask');
    expect(approvalOf(tool(), entry({ deny: ['delete_file'] }), { allow: ['*'], ask: ['*'] }).approval).toBe('deny');
    expect(approvalOf(tool({ destructiveHint: true }), entry({ ask: ['x'] }), { allow: ['fs__*'] }).approval).toBe('allow');
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
    const { settings } = readFileSettings({ approvals: { ask: ['*delete*'] }, approvalFallback: 'allow' }, '/c.json', {});
    expect(settings).toEqual({ approvals: { ask: ['*delete*'] }, approvalFallback: 'allow' });
  });

  it('refuses a bad settings.approvals or approvalFallback, saying what it takes', () => {
    expect(() => readFileSettings({ approvals: { confirm: ['x'] } }, '/c.json', {})).toThrow(
      'settings.approvals.confirm is not a choice; approvals takes "allow", "ask" and "deny", each a list of globs',
    );
    expect(() => readFileSettings({ approvals: ['x'] }, '/c.json', {})).toThrow(/must be an object of glob lists/);
    expect(() => readFileSettings({ approvalFallback: 'ask' }, '/c.json', {})).toThrow(
      'settings.approvalFallback must be "refuse" or "allow" (got "ask")',
    );
  });
});

// Deny wins (issue 45): a tool the entry's `deny` named and that was also annotated destructive
// was put to a person as a question before the deny applied.
describe('deny wins, whatever else is said of the tool, in every order of precedence', () => {
  type Rule = 'allow' | 'ask' | 'deny' | undefined;
  const annotations = {
    none: undefined,
    destructive: { destructiveHint: true },
    'read-only': { readOnlyHint: true },
    'destructive and read-only': { destructiveHint: true, readOnlyHint: true },
  } as const;
  const toolPolicies: Record<string, ToolPolicy> = {
    'no allow/deny': {},
    'deny names it': { deny: ['delete_*'] },
    'allow names it': { allow: ['delete_*'] },
    'allow leaves it out': { allow: ['read_*'] },
    'allow and deny both name it': { allow: ['*'], deny: ['delete_file'] },
  };
  const rules: Rule[] = [undefined, 'allow', 'ask', 'deny'];
  const globs = (rule: Rule, glob: string) => (rule === undefined ? {} : { [rule]: [glob] });

  /** The rule, written out plainly: the entry's allow/deny first, then the most cautious glob, then the annotations. */
  function expected(policy: string, fromEntry: Rule, fromSettings: Rule, hints: keyof typeof annotations): Rule {
    if (policy === 'deny names it' || policy === 'allow leaves it out' || policy === 'allow and deny both name it') return 'deny';
    for (const approval of ['deny', 'ask', 'allow'] as const)
      if (fromEntry === approval || fromSettings === approval) return approval;
    return hints === 'destructive' ? 'ask' : 'allow';
  }

  const cases = Object.keys(toolPolicies).flatMap((policy) =>
    rules.flatMap((fromEntry) =>
      rules.flatMap((fromSettings) => Object.keys(annotations).map((hints) => [policy, fromEntry, fromSettings, hints] as const)),
    ),
  );

  it(`decides each of the ${cases.length} combinations of the entry's allow/deny, its approvals, settings.approvals and the annotations`, () => {
    for (const [policy, fromEntry, fromSettings, hints] of cases) {
      const subject = {
        name: 'fs__delete_file',
        upstreamName: 'delete_file',
        ...(annotations[hints as keyof typeof annotations] !== undefined
          ? { annotations: annotations[hints as keyof typeof annotations] }
          : {}),
      };
      const decided = approvalOf(
        subject,
        { tools: toolPolicies[policy]!, approvals: globs(fromEntry, 'delete_*') },
        globs(fromSettings, 'fs__*'),
      );
      const label = `${policy}; entry approvals ${fromEntry ?? 'none'}; settings ${fromSettings ?? 'none'}; ${hints}`;
      expect(decided.approval, label).toBe(expected(policy, fromEntry, fromSettings, hints as keyof typeof annotations));
    }
  });

  it("says why a tool the entry's allow/deny refuse is denied", () => {
    const destructive = tool({ destructiveHint: true });
    expect(approvalOf(destructive, { tools: { deny: ['delete_*'] }, approvals: { ask: ['*'] } }, { allow: ['*'] })).toEqual({
      approval: 'deny',
      why: `the server entry's deny "delete_*"`,
    });
    expect(approvalOf(destructive, { tools: { allow: ['read_*'] } }, undefined)).toEqual({
      approval: 'deny',
      why: "not in the server entry's allow",
    });
  });
});
