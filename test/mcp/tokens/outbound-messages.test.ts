/** What of each message toward the client is tokenized, and what of the protocol's own is left as it is. */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../../../src/config/tokenize-setting.js';
import { tokenizeOutbound, type AnsweredRequest } from '../../../src/mcp/tokens/outbound-messages.js';
import { Tokenizer, type ScopeTokens } from '../../../src/tokenize/tokenizer.js';

const EMAIL = 'ada.lovelace@example.com';
const PHONE = '+1 415-555-0143';
const IMAGE = 'iVBORw0KGgo+14155550143ada@example.comAAAA';

function scope(over: Partial<TokenizeSettings> = {}): ScopeTokens {
  return new Tokenizer({ ...DEFAULT_TOKENIZE, ...over }).forScope('client');
}

function answer(result: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', id: 7, result };
}

async function resultOf(request: AnsweredRequest, result: Record<string, unknown>, tokens = scope()): Promise<unknown> {
  const out = await tokenizeOutbound(answer(result), request, tokens);
  return 'result' in out ? out.result : out;
}

describe('a message toward the client', () => {
  it("tokenizes a tool's answer: its text and resource text, its structuredContent as a value; images, blobs and URIs stay", async () => {
    const result = {
      content: [
        { type: 'text', text: `Mail ${EMAIL}, call ${PHONE}` },
        { type: 'image', data: IMAGE, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: `mailto:${EMAIL}`, text: `to: ${EMAIL}` } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: IMAGE } },
        { type: 'resource_link', uri: `mailto:${EMAIL}`, name: EMAIL },
      ],
      structuredContent: { contact: { name: 'Ada', email: EMAIL } },
      isError: false,
    };
    expect(await resultOf({ method: 'tools/call', tool: 'crm__get' }, result, scope({ fields: ['name'] }))).toEqual({
      content: [
        { type: 'text', text: 'Mail [EMAIL_1], call [PHONE_1]' },
        { type: 'image', data: IMAGE, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: `mailto:${EMAIL}`, text: 'to: [EMAIL_1]' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: IMAGE } },
        { type: 'resource_link', uri: `mailto:${EMAIL}`, name: '[EMAIL_1]' },
      ],
      structuredContent: { contact: { name: '[NAME_1]', email: '[EMAIL_1]' } },
      isError: false,
    });
  });

  it("reads code_execution's own facts as text: a configured field of the same name as one of them is left alone", async () => {
    const facts = {
      script: 's1',
      status: 'finished',
      calls: { answered: 1, unseen: [{ tool: 'crm__add', args: `{"email":"${EMAIL}"}`, fate: 'cancelled' }] },
      value: [{ status: 'paid', email: EMAIL }],
      notifications: [{ status: 'moved', to: EMAIL }],
    };
    const out = await resultOf(
      { method: 'tools/call', tool: 'code_execution' },
      { content: [{ type: 'text', text: 'Script s1 finished' }], structuredContent: facts },
      scope({ fields: ['status'] }),
    );
    expect(out).toMatchObject({
      structuredContent: {
        script: 's1',
        status: 'finished',
        calls: { answered: 1, unseen: [{ tool: 'crm__add', args: '{"email":"[EMAIL_1]"}', fate: 'cancelled' }] },
        value: [{ status: '[STATUS_1]', email: '[EMAIL_1]' }],
        notifications: [{ status: '[STATUS_2]', to: '[EMAIL_1]' }],
      },
    });
  });

  it('numbers values in the order the client reads them: the text first, then structuredContent', async () => {
    const out = await resultOf(
      { method: 'tools/call', tool: 'code_execution' },
      { content: [{ type: 'text', text: `value: ["a@example.com","${EMAIL}"]` }], structuredContent: { value: [EMAIL] } },
    );
    expect(out).toEqual({
      content: [{ type: 'text', text: 'value: ["[EMAIL_1]","[EMAIL_2]"]' }],
      structuredContent: { value: ['[EMAIL_2]'] },
    });
  });

  it('tokenizes log data, progress messages and task status, and leaves list changes as they are', async () => {
    const tokens = scope();
    const log = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', logger: 'crm', data: { to: EMAIL } },
    };
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 3, progress: 1, message: PHONE },
    };
    const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    expect(await tokenizeOutbound(log as JSONRPCMessage, undefined, tokens)).toEqual({
      ...log,
      params: { ...log.params, data: { to: '[EMAIL_1]' } },
    });
    expect(await tokenizeOutbound(progress as JSONRPCMessage, undefined, tokens)).toEqual({
      ...progress,
      params: { ...progress.params, message: '[PHONE_1]' },
    });
    expect(await tokenizeOutbound(changed as JSONRPCMessage, undefined, tokens)).toBe(changed);
  });

  it("tokenizes what an upstream asks of the client, keeping a form's keys and types even for a configured field", async () => {
    const elicit = {
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: {
        message: `Send to ${EMAIL}?`,
        requestedSchema: { type: 'object', properties: { name: { type: 'string', default: EMAIL } } },
      },
    };
    expect(await tokenizeOutbound(elicit as JSONRPCMessage, undefined, scope({ fields: ['name', 'type'] }))).toEqual({
      ...elicit,
      params: {
        message: 'Send to [EMAIL_1]?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', default: '[EMAIL_1]' } } },
      },
    });
    const sampling = {
      jsonrpc: '2.0',
      id: 2,
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: `Summarize ${EMAIL}` } }],
        systemPrompt: `Call ${PHONE}`,
        maxTokens: 10,
      },
    };
    expect(await tokenizeOutbound(sampling as JSONRPCMessage, undefined, scope())).toMatchObject({
      params: { messages: [{ content: { text: 'Summarize [EMAIL_1]' } }], systemPrompt: 'Call [PHONE_1]', maxTokens: 10 },
    });
  });

  it("tokenizes an input_required's requests, never its requestState", async () => {
    const state = `signed.${EMAIL}`;
    const out = await resultOf(
      { method: 'tools/call', tool: 'code_execution' },
      {
        resultType: 'input_required',
        inputRequests: { a: { method: 'elicitation/create', params: { message: EMAIL, requestedSchema: { type: 'object' } } } },
        requestState: state,
      },
    );
    expect(out).toEqual({
      resultType: 'input_required',
      inputRequests: {
        a: { method: 'elicitation/create', params: { message: '[EMAIL_1]', requestedSchema: { type: 'object' } } },
      },
      requestState: state,
    });
  });

  it("tokenizes a task's status, result and error, a prompt's messages and a resource's text; lists pass as they are", async () => {
    expect(
      await resultOf(
        { method: 'tasks/get' },
        { taskId: 't1', status: 'completed', statusMessage: EMAIL, result: { content: [{ type: 'text', text: PHONE }] } },
      ),
    ).toEqual({
      taskId: 't1',
      status: 'completed',
      statusMessage: '[EMAIL_1]',
      result: { content: [{ type: 'text', text: '[PHONE_1]' }] },
    });
    expect(
      await resultOf(
        { method: 'prompts/get' },
        { description: EMAIL, messages: [{ role: 'user', content: { type: 'text', text: `Hi ${EMAIL}` } }] },
      ),
    ).toEqual({ description: '[EMAIL_1]', messages: [{ role: 'user', content: { type: 'text', text: 'Hi [EMAIL_1]' } }] });
    expect(await resultOf({ method: 'resources/read' }, { contents: [{ uri: 'file:///c.txt', text: PHONE }] })).toEqual({
      contents: [{ uri: 'file:///c.txt', text: '[PHONE_1]' }],
    });
    const listed = { resources: [{ uri: `mailto:${EMAIL}`, name: EMAIL }] };
    expect(await resultOf({ method: 'resources/list' }, listed)).toBe(listed);
  });

  it("tokenizes an error's message", async () => {
    const error = { jsonrpc: '2.0', id: 4, error: { code: -32603, message: `no contact ${EMAIL}` } } as JSONRPCMessage;
    expect(await tokenizeOutbound(error, { method: 'tools/call' }, scope())).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32603, message: 'no contact [EMAIL_1]' },
    });
  });
});
