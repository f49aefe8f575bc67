// Issue 48's acceptance test: with tokenize on, a customer list moves from one upstream (the sheet)
// to another (the crm) through two scripts; the crm receives the real values, and no byte the
// client received holds one. Then what must not restore: another principal's use of the tokens,
// a token from before a restart, one past its time to live, and any token with `restore: []`.
// Served in process (the stdio server whole, its byte stream captured); the second principal
// needs HTTP with a tokens file, its responses' bytes captured as they arrive.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { connectHttp, startHttpServer } from '../support/http-server.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { fixturePath, nodeEntry, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';
import { customerRows } from '../fixtures/upstreams/customer-rows.mjs';

const ROWS = customerRows(200);
const REAL = ROWS.flatMap((row) => [row.email, row.phone]);
const READ_ROWS = 'return JSON.parse((await tools.sheet__list_customers({})).content[0].text)';
/** The seventh row's email and phone: the seventh of each the first script's answer tokenized. */
const SEND_SEVENTH = 'return await tools.crm__create_contact({ name: "row 7", email: "[EMAIL_7]", phone: "[PHONE_7]" })';
const UNKNOWN_LINE = /2 tokens were not restored \(unknown here, or expired\): \[EMAIL_7\], \[PHONE_7\]; passed on as written\./;

function config(crmFile: string, tokenize: unknown): string {
  return writeConfig(
    {
      sheet: nodeEntry(fixturePath('upstreams/sheet.mjs'), ['200']),
      crm: nodeEntry(fixturePath('upstreams/crm.mjs'), [], { env: { CRM_RECORD_FILE: crmFile } }),
    },
    { tokenize },
  );
}

function received(crmFile: string): Array<{ tool: string; args: Record<string, unknown> }> {
  if (!existsSync(crmFile)) return [];
  return readFileSync(crmFile, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { tool: string; args: Record<string, unknown> });
}

/** The real emails and phones `text` holds. */
const realIn = (text: string): string[] => REAL.filter((value) => text.includes(value));

const running: InProcessServer[] = [];
async function start(configFile: string): Promise<InProcessServer> {
  const server = await startInProcess(['--config', configFile, '--log-level', 'debug']);
  running.push(server);
  return server;
}

afterEach(async () => {
  for (const server of running.splice(0)) expect(await server.close()).toEqual([]);
});

describe('tokenized personal data, end to end', () => {
  test('a customer list moves from the sheet to the crm through two scripts; the crm gets real values, the client none', async () => {
    const crmFile = join(makeTempDir('tokenize'), 'crm.jsonl');
    const server = await start(config(crmFile, { fields: ['name', 'address'] }));

    const read = await server.run({ code: READ_ROWS });
    const rows = valueOf(read) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(200);
    expect(rows[6]).toMatchObject({
      email: '[EMAIL_7]',
      phone: '[PHONE_7]',
      order_id: ROWS[6]!.order_id,
      amount: ROWS[6]!.amount,
    });
    expect(rows[6]!.name).toMatch(/^\[NAME_\d+\]$/);

    const sent = await server.run({ code: SEND_SEVENTH });
    expect(sent.isError).toBeFalsy();
    // The crm stored the real values and answered with them: the client sees the tokens again.
    expect(received(crmFile)).toEqual([
      { tool: 'create_contact', args: { name: 'row 7', email: ROWS[6]!.email, phone: ROWS[6]!.phone } },
    ]);
    expect(textOf(sent)).toContain('[EMAIL_7]');
    expect(textOf(sent)).toContain('[PHONE_7]');
    expect(textOf(sent)).not.toMatch(/not restored/);

    // "Dear [NAME_n]," inside a string, and a whole move in one script, all restored upstream.
    const name = String(rows[0]!.name);
    const moved = await server.run({
      code: `const rows = JSON.parse((await tools.sheet__list_customers({ limit: 5 })).content[0].text);
        for (const row of rows) await tools.crm__create_contact({ name: row.name, email: row.email, phone: row.phone, note: "Dear ${name}," });
        notify({ moved: rows.map((row) => row.email) });
        console.log("first:", rows[0].email, rows[0].phone);
        return rows.map((row) => row.email)`,
    });
    expect(valueOf(moved)).toEqual(['[EMAIL_1]', '[EMAIL_2]', '[EMAIL_3]', '[EMAIL_4]', '[EMAIL_5]']);
    expect(textOf(moved)).toContain('first: [EMAIL_1] [PHONE_1]');
    expect(
      received(crmFile)
        .slice(1)
        .map(({ args }) => args),
    ).toEqual(
      ROWS.slice(0, 5).map((row) => ({ name: row.name, email: row.email, phone: row.phone, note: `Dear ${ROWS[0]!.name},` })),
    );
    // notify() reached the client as a log message, tokenized too.
    await until('the notify log message', () => server.logs.find((log) => JSON.stringify(log.data).includes('"moved"')));
    expect(JSON.stringify(server.logs)).toContain('[EMAIL_5]');

    // The tools list and the description tell the model that tokens exist and pass as they are.
    const [tool] = (await server.client.listTools()).tools;
    expect(tool!.description).toMatch(/tokens \(\[EMAIL_1\], \[PHONE_1\], .*\[NAME_1\], \[ADDRESS_1\]\)/);

    // Not one real email or phone in any byte the client received, nor in the server's log.
    const stream = server.received();
    expect(stream.length).toBeGreaterThan(50_000);
    expect(realIn(stream)).toEqual([]);
    expect(realIn(server.stderr())).toEqual([]);
  });

  test('a token from before a restart is not restored: the crm gets it literal, and the answer says so', async () => {
    const crmFile = join(makeTempDir('tokenize'), 'crm.jsonl');
    const file = config(crmFile, true);
    const first = await start(file);
    await first.run({ code: READ_ROWS });
    expect(await first.close()).toEqual([]);
    running.splice(running.indexOf(first), 1);

    const second = await start(file);
    const sent = await second.run({ code: SEND_SEVENTH });
    expect(received(crmFile)).toEqual([
      { tool: 'create_contact', args: { name: 'row 7', email: '[EMAIL_7]', phone: '[PHONE_7]' } },
    ]);
    expect(textOf(sent)).toMatch(UNKNOWN_LINE);
    expect(sent.structuredContent).toMatchObject({ tokensNotRestored: ['[EMAIL_7]', '[PHONE_7]'] });
  });

  test('a token past its time to live is not restored', async () => {
    const crmFile = join(makeTempDir('tokenize'), 'crm.jsonl');
    const server = await start(config(crmFile, { ttlMs: 1_000 }));
    await server.run({ code: READ_ROWS });
    const readAt = Date.now();
    await until('the tokens to be past their time to live', () => Date.now() > readAt + 1_500);
    const sent = await server.run({ code: SEND_SEVENTH });
    expect(received(crmFile)[0]!.args).toMatchObject({ email: '[EMAIL_7]', phone: '[PHONE_7]' });
    expect(textOf(sent)).toMatch(UNKNOWN_LINE);
  });

  test('with restore: [] no upstream receives a real value, read from a tool or from a token', async () => {
    const crmFile = join(makeTempDir('tokenize'), 'crm.jsonl');
    const server = await start(config(crmFile, { restore: [] }));
    await server.run({ code: READ_ROWS });
    await server.run({ code: SEND_SEVENTH });
    // A script that reads the sheet and sends a row on without the model: the crm gets tokens still.
    await server.run({
      code: `const [row] = JSON.parse((await tools.sheet__list_customers({ offset: 6, limit: 1 })).content[0].text);
        return await tools.crm__create_contact({ name: row.name, email: row.email, phone: row.phone })`,
    });
    const contacts = received(crmFile).map(({ args }) => args);
    expect(contacts).toEqual([
      { name: 'row 7', email: '[EMAIL_7]', phone: '[PHONE_7]' },
      { name: ROWS[6]!.name, email: '[EMAIL_7]', phone: '[PHONE_7]' },
    ]);
  });

  test("an exposed tool's arguments have their tokens put back, its answer is tokenized, and an unknown token is named", async () => {
    const record = join(makeTempDir('tokenize'), 'recorder.jsonl');
    const file = writeConfig({
      recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: record } }),
    });
    // The flag alone turns on the defaults, as `"tokenize": true` does in the file.
    const server = await startInProcess(['--config', file, '--tokenize', '--expose', 'echo']);
    running.push(server);
    const echo = (text: string) => server.client.callTool({ name: 'echo', arguments: { text } });
    const first = await echo(`write to ${ROWS[0]!.email}`);
    expect(textOf(first)).toBe('write to [EMAIL_1]');
    const second = await echo('again [EMAIL_1], not [PHONE_4]');
    expect(textOf(second)).toBe(
      'again [EMAIL_1], not [PHONE_4]\n1 token was not restored (unknown here, or expired): [PHONE_4]; passed on as written.',
    );
    const calls = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; args?: { text: string } })
      .filter((entry) => entry.event === 'call');
    expect(calls.map((call) => call.args!.text)).toEqual([
      `write to ${ROWS[0]!.email}`,
      `again ${ROWS[0]!.email}, not [PHONE_4]`,
    ]);
    expect(realIn(server.received())).toEqual([]);
  });

  test("the client's answer to an upstream's question reaches that upstream with the client's tokens put back", async () => {
    const server = await startInProcess(['--tokenize', '--', process.execPath, fixturePath('upstreams/recorder.mjs')], {
      capabilities: { elicitation: { form: {} } },
      onElicit: () => ({ action: 'accept', content: { name: '[EMAIL_1]' } }),
    });
    running.push(server);
    // The script's code reads the answer's name as the upstream echoed it: the real address, compared with the token's value.
    const read = await server.run({
      code: `return (await tools.echo({ text: ${JSON.stringify(ROWS[0]!.email)} })).content[0].text`,
    });
    expect(valueOf(read)).toBe('[EMAIL_1]');
    const asked = await server.run({
      code: 'const answer = JSON.parse((await tools.ask({})).content[0].text); return [answer.content.name, answer.content.name === "[EMAIL_1]"]',
    });
    expect(valueOf(asked)).toEqual(['[EMAIL_1]', true]);
    expect(realIn(server.received())).toEqual([]);
  });

  test("over HTTP, a second principal's use of the first one's tokens restores nothing; neither receives a real value", async () => {
    const dir = makeTempDir('tokenize');
    const crmFile = join(dir, 'crm.jsonl');
    const tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify({ ada: 'ada-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef' }));
    chmodSync(tokensFile, 0o600);
    const server = await startHttpServer(['--config', config(crmFile, true), '--http-tokens-file', tokensFile]);
    const chunks: Uint8Array[] = [];
    const onBytes = (chunk: Uint8Array) => void chunks.push(chunk);
    const modern = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const ada = await connectHttp(server.url, { token: 'ada-token-0123456789abcdef', onBytes, ...modern });
    const bob = await connectHttp(server.url, { token: 'bob-token-0123456789abcdef', onBytes, ...modern });
    try {
      const read = await ada.run({ code: READ_ROWS });
      expect((valueOf(read) as Array<{ email: string }>)[6]!.email).toBe('[EMAIL_7]');
      const sent: CallToolResult = await bob.run({ code: SEND_SEVENTH });
      expect(textOf(sent)).toMatch(UNKNOWN_LINE);
      expect(received(crmFile)[0]!.args).toMatchObject({ email: '[EMAIL_7]', phone: '[PHONE_7]' });
      // Ada's own use of them restores.
      await ada.run({ code: SEND_SEVENTH });
      expect(received(crmFile)[1]!.args).toMatchObject({ email: ROWS[6]!.email, phone: ROWS[6]!.phone });
      const stream = Buffer.concat(chunks).toString('utf8');
      expect(stream).toContain('[EMAIL_200]');
      expect(realIn(stream)).toEqual([]);
    } finally {
      await ada.close();
      await bob.close();
      expect((await server.stop()).left).toEqual([]);
    }
  });
});
