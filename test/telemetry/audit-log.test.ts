// The audit log's lines (issue 45): one record a line by every reader's rule, and a line for every
// call a script attempts, the refused ones included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { ApprovalGate, type PersonChannel } from '../../src/approvals/approval-gate.js';
import { ApprovalTally, sendApproved } from '../../src/scripts/approved-calls.js';
import { AuditLog, setActiveAuditLog } from '../../src/telemetry/audit-log.js';
import { describeText } from '../../src/telemetry/call-outcome.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { ALL_ACTING } from '../support/acting-characters.js';
import { askingTool } from '../support/catalog-tools.js';

/** Lines as Python's str.splitlines() cuts them: the Unicode way, as some log shippers do. */
function unicodeLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- the line ends of the Unicode rule include controls
  return text.split(/\r\n|[\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029]/u).filter((line) => line !== '');
}

let open: AuditLog | undefined;
afterEach(() => {
  setActiveAuditLog(undefined);
  open?.close();
  open = undefined;
});

function auditFile(label: string, withArguments = false): { path: string; lines: () => Array<Record<string, unknown>> } {
  const path = join(makeTempDir(label), 'audit.jsonl');
  open = new AuditLog(path, withArguments, () => {});
  setActiveAuditLog(open);
  return {
    path,
    lines: () => unicodeLines(readFileSync(path, 'utf8')).map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the audit log', () => {
  it('writes a record whose strings hold U+2028, U+2029 and U+0085 as one line by the Unicode rule, meaning the same', () => {
    const { path, lines } = auditFile('audit-separators');
    const entry = {
      time: '2026-01-01T00:00:00.000Z',
      principal: `p\u2028q`,
      session: 's',
      script: `x\u0085y`,
      tool: `t\u2029${ALL_ACTING}`,
      args: { bytes: 2, sha256: 'ab' },
      outcome: 'answered' as const,
      durationMs: 1,
    };
    open!.write(entry);
    open!.write({ ...entry, script: 'second' });
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/[\u0085\u2028\u2029]/u);
    expect(lines()).toEqual([entry, { ...entry, script: 'second' }]);
  });
});

const tool = askingTool({ name: 'items__delete_item' });

const answering = (answer: ElicitResult | undefined): PersonChannel => ({
  accepts: () => answer !== undefined,
  ask: () => Promise.resolve(answer!),
});

async function refusedCalls(person: PersonChannel, ids: readonly string[], withArguments = false) {
  const { lines } = auditFile('audit-refused', withArguments);
  const gate = new ApprovalGate({ person, timeoutMs: 600_000, fallback: 'refuse', owner: 'principal alice', log: () => {} });
  const sent: string[] = [];
  const outcomes = await Promise.allSettled(
    ids.map((id) =>
      sendApproved(
        {
          gate,
          script: 'a1b2c3-7',
          tool,
          name: tool.name,
          args: { id },
          signal: new AbortController().signal,
          hold: undefined,
          identity: { principal: 'alice', session: 'sess-1' },
          tally: new ApprovalTally('refuse'),
        },
        () => {
          sent.push(id);
          return Promise.resolve({ content: [] });
        },
      ),
    ),
  );
  expect(sent).toEqual([]);
  expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
  return lines();
}

/** A refused call's line: who, which script and tool, the arguments' size and digest, refused with its code. */
const refusedLine = (id: string, error: string): unknown =>
  expect.objectContaining({
    principal: 'alice',
    session: 'sess-1',
    script: 'a1b2c3-7',
    upstream: 'items',
    tool: 'items__delete_item',
    args: describeText(JSON.stringify({ id })),
    outcome: 'refused',
    error,
    durationMs: expect.any(Number),
  });

describe('a call refused before it was sent', () => {
  it("has its own line when a person denies it, beside the approval's lines", async () => {
    const lines = await refusedCalls(answering({ action: 'decline' }), ['a', 'b']);
    expect(lines.filter((line) => line.outcome !== undefined)).toEqual([
      refusedLine('a', 'APPROVAL_DENIED'),
      refusedLine('b', 'APPROVAL_DENIED'),
    ]);
    expect(lines.filter((line) => line.approval !== undefined).map((line) => [line.approval, line.calls])).toEqual([
      ['asked', 2],
      ['denied', 2],
    ]);
  });

  it('has its own line, and an approval line of its own, when the fallback refuses it: one per call, not one per script and tool', async () => {
    const lines = await refusedCalls(answering(undefined), ['a', 'b', 'c']);
    expect(lines.filter((line) => line.approval !== undefined).map((line) => [line.approval, line.calls])).toEqual([
      ['fallback_refused', 1],
      ['fallback_refused', 1],
      ['fallback_refused', 1],
    ]);
    expect(lines.filter((line) => line.outcome !== undefined)).toEqual(
      ['a', 'b', 'c'].map((id) => refusedLine(id, 'APPROVAL_UNAVAILABLE')),
    );
  });

  it('carries its arguments too with auditArguments', async () => {
    const lines = await refusedCalls(answering({ action: 'decline' }), ['a'], true);
    expect(lines.find((line) => line.outcome === 'refused')?.args).toEqual({ ...describeText('{"id":"a"}'), value: { id: 'a' } });
  });
});
