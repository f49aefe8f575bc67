/** The one outbound boundary: a connection's transport, over the SDK's linked in-memory pair. */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZE } from '../../../src/config/tokenize-setting.js';
import { TokenizingTransport } from '../../../src/mcp/tokens/tokenizing-transport.js';
import { Tokenizer } from '../../../src/tokenize/tokenizer.js';
import { MemoryTokenVault, type TokenVault } from '../../../src/tokenize/token-vault.js';
import { until } from '../../support/waiting.js';

const EMAIL = 'ada.lovelace@example.com';

/** The server's end tokenizing over a linked pair; what the client's end received, in order, and a way to send as the client. */
async function connected(vault?: TokenVault) {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const tokenizer = vault === undefined ? new Tokenizer(DEFAULT_TOKENIZE) : new Tokenizer(DEFAULT_TOKENIZE, vault);
  const tokens = tokenizer.forScope('client');
  const transport = new TokenizingTransport(server, tokens);
  const fromServer: JSONRPCMessage[] = [];
  const toServer: JSONRPCMessage[] = [];
  client.onmessage = (message) => void fromServer.push(message);
  transport.onmessage = (message) => void toServer.push(message);
  await Promise.all([client.start(), transport.start()]);
  return { client, transport, tokens, fromServer, toServer };
}

describe('a tokenizing transport', () => {
  it('sends each message tokenized, in the order sent: one whose parts take longer holds back the short ones after it', async () => {
    const { transport, fromServer } = await connected();
    const messages = Array.from({ length: 50 }, (_, i) => ({
      role: 'user',
      content: { type: 'text', text: `to row${i}@example.com` },
    }));
    await Promise.all([
      transport.send({ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: { messages, maxTokens: 10 } }),
      transport.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1, message: EMAIL },
      }),
      transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
    ]);
    expect(fromServer.map((message) => ('method' in message ? message.method : ''))).toEqual([
      'sampling/createMessage',
      'notifications/progress',
      'notifications/tools/list_changed',
    ]);
    expect(JSON.stringify(fromServer)).not.toMatch(/@example\.com/);
    expect(fromServer[1]).toMatchObject({ params: { message: '[EMAIL_51]' } });
  });

  it("answers a tools/call with a line on the tokens in its arguments this scope doesn't know, and only then", async () => {
    const { client, transport, tokens, fromServer, toServer } = await connected();
    const known = await tokens.tokenizeText(EMAIL);
    const call = (id: number, code: string) =>
      client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'code_execution', arguments: { code } } });
    await call(1, `return "${known}"`);
    await call(2, `return ["${known}", "[EMAIL_9]", "[PHONE_3]"]`);
    await until('both calls to arrive', () => toServer.length === 2);
    const answer = (id: number) =>
      transport.send({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: `Script s${id} finished` }], structuredContent: { script: `s${id}` } },
      });
    await answer(1);
    await answer(2);
    expect(fromServer).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'Script s1 finished' }], structuredContent: { script: 's1' } },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [
            {
              type: 'text',
              text: 'Script s2 finished\n2 tokens were not restored (unknown here, or expired): [EMAIL_9], [PHONE_3]; passed on as written.',
            },
          ],
          structuredContent: { script: 's2', tokensNotRestored: ['[EMAIL_9]', '[PHONE_3]'] },
        },
      },
    ]);
  });

  it('sends an error in place of an answer it could not tokenize, naming no value', async () => {
    const failing: TokenVault = {
      tokensFor: () => Promise.reject(new Error(`the vault is down while holding ${EMAIL}`)),
      valuesOf: (scope, tokens) => new MemoryTokenVault(DEFAULT_TOKENIZE).valuesOf(scope, tokens),
      forget: () => Promise.resolve(),
    };
    const { client, transport, fromServer, toServer } = await connected(failing);
    await client.send({ jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'file:///a' } });
    await until('the request to arrive', () => toServer.length === 1);
    await transport.send({ jsonrpc: '2.0', id: 5, result: { contents: [{ uri: 'file:///a', text: EMAIL }] } });
    expect(fromServer).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32603, message: 'codemode-mcp could not tokenize this answer (Error), so none of it was sent' },
      },
    ]);
    // A notification that can't be tokenized is not sent: its sender is told.
    await expect(
      transport.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1, message: EMAIL },
      }),
    ).rejects.toThrow(/the vault is down/);
    expect(fromServer).toHaveLength(1);
  });
});
