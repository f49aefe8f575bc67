/** The issue-48 fixtures on their own: the sheet serves the seeded customer rows, the crm records what it is sent. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../support/mcp-client.js';
import { isRunning } from '../support/processes.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';
import { customerRows } from '../fixtures/upstreams/customer-rows.mjs';

async function connected(script: string, args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixturePath(script), ...args],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'fixtures-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    close: async () => {
      await client.close();
      await until(`${script} (pid ${pid}) to exit`, () => !isRunning(pid));
    },
  };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0]!.text;

describe('the sheet and crm fixtures', () => {
  it('the sheet serves the seeded rows, all of them or a page, and says when a row is past its end', async () => {
    const sheet = await connected('upstreams/sheet.mjs', ['250']);
    try {
      const all = JSON.parse(textOf(await sheet.client.callTool({ name: 'list_customers', arguments: {} }))) as unknown[];
      expect(all).toEqual(customerRows(250));
      const page = JSON.parse(
        textOf(await sheet.client.callTool({ name: 'list_customers', arguments: { offset: 10, limit: 5 } })),
      );
      expect(page).toEqual(customerRows(250).slice(10, 15));
      expect(JSON.parse(textOf(await sheet.client.callTool({ name: 'get_customer', arguments: { index: 7 } })))).toEqual(
        customerRows(250)[7],
      );
      const past = await sheet.client.callTool({ name: 'get_customer', arguments: { index: 250 } });
      expect(past.isError).toBe(true);
      expect(textOf(past)).toBe('no row 250: the sheet has 250');
    } finally {
      await sheet.close();
    }
  });

  it('the rows have distinct emails and phones, and every column a test reads', () => {
    const rows = customerRows(200);
    expect(new Set(rows.map((row) => row.email)).size).toBe(200);
    expect(new Set(rows.map((row) => row.phone)).size).toBe(200);
    expect(customerRows(3)).toEqual(rows.slice(0, 3));
  });

  it('the crm records each contact it is sent and answers with it as stored', async () => {
    const file = join(makeTempDir('crm'), 'received.jsonl');
    const crm = await connected('upstreams/crm.mjs', [], { CRM_RECORD_FILE: file });
    try {
      const contact = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' };
      expect(JSON.parse(textOf(await crm.client.callTool({ name: 'create_contact', arguments: contact })))).toEqual({
        id: 'c-1',
        ...contact,
      });
      const many = await crm.client.callTool({ name: 'create_contacts', arguments: { contacts: [contact, contact] } });
      expect(textOf(many)).toBe('created 2 contacts');
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(lines).toEqual([
        { tool: 'create_contact', args: contact },
        { tool: 'create_contacts', args: { contacts: [contact, contact] } },
      ]);
    } finally {
      await crm.close();
    }
  });
});
