// A script's calls through the approval gate (src/scripts/approved-calls.ts): what is sent, what
// is put to a person, and what is refused at once.
import { describe, expect, it } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/client';
import { ApprovalGate, type PersonChannel } from '../../src/approvals/approval-gate.js';
import type { CatalogTool } from '../../src/catalog/types.js';
import { ApprovalTally, sendApproved } from '../../src/scripts/approved-calls.js';
import { ToolRefusedError } from '../../src/support/errors.js';
import { askingTool } from '../support/catalog-tools.js';

/** A person who records each question and denies it. */
function recordingPerson() {
  const questions: ElicitRequest[] = [];
  const person: PersonChannel = {
    accepts: () => true,
    ask: (request) => {
      questions.push(request);
      return Promise.resolve({ action: 'decline' });
    },
  };
  return { person, questions };
}

const gateFor = (person: PersonChannel) =>
  new ApprovalGate({ person, timeoutMs: 600_000, fallback: 'refuse', owner: 'this session', log: () => {} });

const destructive = askingTool;

const callOf = (gate: ApprovalGate, tool: CatalogTool) => ({
  gate,
  script: 's-1',
  tool,
  name: tool.name,
  args: { id: 'a' },
  signal: new AbortController().signal,
  hold: undefined,
  identity: { principal: 'local', session: 'stdio' },
  tally: new ApprovalTally('refuse'),
});

describe('a call of a tool the config denies', () => {
  // Deny wins (issue 45): even were its approval "ask", a person is never asked about it.
  it('is refused at once by the route, and no person is asked', async () => {
    const { person, questions } = recordingPerson();
    const gate = gateFor(person);
    const sent: string[] = [];
    const route = () => {
      sent.push('routed');
      return Promise.reject(new ToolRefusedError('TOOL_DENIED', 'delete_item', 'the config does not allow it'));
    };
    await expect(sendApproved(callOf(gate, destructive({ allowed: false })), route)).rejects.toThrow(/^TOOL_DENIED: /);
    expect(sent).toEqual(['routed']);
    expect(questions).toEqual([]);
  });

  it('is asked about when the config allows it and its approval is ask', async () => {
    const { person, questions } = recordingPerson();
    const sent: string[] = [];
    const route = () => {
      sent.push('routed');
      return Promise.resolve({ content: [] });
    };
    await expect(sendApproved(callOf(gateFor(person), destructive({})), route)).rejects.toThrow(/^APPROVAL_DENIED: /);
    expect(questions).toHaveLength(1);
    expect(sent).toEqual([]);
  });
});
