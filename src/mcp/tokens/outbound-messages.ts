/**
 * What of each message toward the client is tokenized (settings.tokenize, docs/tokenize.md): the
 * parts a model reads (text, a tool's structuredContent, a log's data, a progress or status line,
 * what an upstream asks of the client, an error's message), never the protocol's own (ids, method
 * and tool names, URIs, a requestState, binary data). Messages of other kinds pass as they are:
 * the lists (tools, prompts, resources) name what there is, not what it holds.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { ScopeTokens } from '../../tokenize/tokenizer.js';
import { CODE_EXECUTION_TOOL } from '../code-execution/tool.js';

type Json = Record<string, unknown>;

/** The request a response answers: its method, and for a tools/call the tool's name. */
export interface AnsweredRequest {
  readonly method: string;
  readonly tool?: string;
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The message as the client gets it. `answered`: for a response, the request it answers
 * (tokenizing-transport.ts keeps them); undefined for any other message.
 */
export async function tokenizeOutbound(
  message: JSONRPCMessage,
  answered: AnsweredRequest | undefined,
  tokens: ScopeTokens,
): Promise<JSONRPCMessage> {
  const parts = new Parts(tokens);
  if ('method' in message) {
    const params = message.params;
    if (!isObject(params)) return message;
    const tokenized = await parts.params(message.method, params);
    return tokenized === params ? message : { ...message, params: tokenized };
  }
  if ('error' in message) {
    const { error } = message;
    const text = await tokens.tokenizeText(error.message);
    return text === error.message ? message : { ...message, error: { ...error, message: text } };
  }
  if ('result' in message && answered !== undefined) {
    const tokenized = await parts.result(answered, message.result);
    return tokenized === message.result ? message : { ...message, result: tokenized as typeof message.result };
  }
  return message;
}

/** Each part of a message, tokenized in the order it stands, so a value's number is the order the client reads them in. */
class Parts {
  constructor(private readonly tokens: ScopeTokens) {}

  /** A notification's or a request's params, by its method. */
  async params(method: string, params: Json): Promise<Json> {
    switch (method) {
      case 'notifications/message':
        return this.fields(params, { data: (data) => this.tokens.tokenizeValue(data) });
      case 'notifications/progress':
        return this.fields(params, { message: (text) => this.text(text) });
      case 'notifications/tasks/status':
        return this.fields(params, { statusMessage: (text) => this.text(text) });
      case 'elicitation/create':
        // A form's schema keeps its keys and types: only what a person reads in it is tokenized.
        return this.fields(params, { message: (text) => this.text(text), requestedSchema: (schema) => this.strings(schema) });
      case 'sampling/createMessage':
        return this.fields(params, {
          messages: (messages) => this.each(messages, (one) => this.fields(one, { content: (content) => this.content(content) })),
          systemPrompt: (text) => this.text(text),
        });
      default:
        return params;
    }
  }

  /** A response's result, by the request it answers. */
  async result({ method, tool }: AnsweredRequest, result: unknown): Promise<unknown> {
    if (!isObject(result)) return result;
    if (result.resultType === 'input_required') {
      return this.fields(result, { inputRequests: (requests) => this.inputRequests(requests) });
    }
    switch (method) {
      case 'tools/call':
        return this.toolResult(result, tool === CODE_EXECUTION_TOOL);
      case 'tasks/get':
        return this.fields(result, {
          statusMessage: (text) => this.text(text),
          inputRequests: (requests) => this.inputRequests(requests),
          result: (answer) => (isObject(answer) ? this.toolResult(answer) : Promise.resolve(answer)),
          error: (error) => this.fields(error, { message: (text) => this.text(text) }),
        });
      case 'prompts/get':
        return this.fields(result, {
          description: (text) => this.text(text),
          messages: (messages) => this.each(messages, (one) => this.fields(one, { content: (content) => this.content(content) })),
        });
      case 'resources/read':
        return this.fields(result, { contents: (contents) => this.each(contents, (one) => this.resourceContents(one)) });
      default:
        return result;
    }
  }

  /**
   * A tool's answer (or a task made of it): its content blocks, then its structuredContent, as a
   * value; code_execution's own (`script`) has only the script's value and notify payloads read as values.
   */
  private toolResult(result: Json, script = false): Promise<Json> {
    return this.fields(result, {
      content: (content) => this.content(content),
      structuredContent: (value) => (script && isObject(value) ? this.scriptFacts(value) : this.tokens.tokenizeValue(value)),
      statusMessage: (text) => this.text(text),
    });
  }

  /** code_execution's structuredContent: the script's value and notify payloads are values; the rest is ours, its strings read as text. */
  private async scriptFacts(facts: Json): Promise<Json> {
    let copy: Json | undefined;
    for (const [key, item] of Object.entries(facts)) {
      const tokenized =
        key === 'notifications'
          ? await this.each(item, (payload) => this.tokens.tokenizeValue(payload))
          : key === 'value'
            ? await this.tokens.tokenizeValue(item)
            : await this.strings(item);
      if (tokenized !== item) (copy ??= { ...facts })[key] = tokenized;
    }
    return copy ?? facts;
  }

  /** `inputRequests` of an `input_required`: each request's params, as if it were sent as a request. */
  private async inputRequests(requests: unknown): Promise<unknown> {
    if (!isObject(requests)) return requests;
    let copy: Json | undefined;
    for (const [key, request] of Object.entries(requests)) {
      if (!isObject(request) || typeof request.method !== 'string' || !isObject(request.params)) continue;
      const params = await this.params(request.method, request.params);
      if (params !== request.params) (copy ??= { ...requests })[key] = { ...request, params };
    }
    return copy ?? requests;
  }

  /** Content blocks (a list, or one block as sampling may send): text read as text; images, audio and blobs left whole. */
  private content(content: unknown): Promise<unknown> {
    const block = (one: unknown): Promise<unknown> => {
      if (!isObject(one)) return Promise.resolve(one);
      switch (one.type) {
        case 'text':
          return this.fields(one, { text: (text) => this.text(text) });
        case 'resource':
          return this.fields(one, { resource: (resource) => this.resourceContents(resource) });
        case 'resource_link':
          return this.fields(one, {
            name: (text) => this.text(text),
            title: (text) => this.text(text),
            description: (text) => this.text(text),
          });
        default:
          return Promise.resolve(one);
      }
    };
    return Array.isArray(content) ? this.each(content, block) : block(content);
  }

  /** A resource's contents: its text, not its URI or blob. */
  private resourceContents(contents: unknown): Promise<unknown> {
    return isObject(contents) ? this.fields(contents, { text: (text) => this.text(text) }) : Promise.resolve(contents);
  }

  private text(text: unknown): Promise<unknown> {
    return typeof text === 'string' ? this.tokens.tokenizeText(text) : Promise.resolve(text);
  }

  /** Every string in a value tokenized as text (keys too), with no field taken as a configured one: a schema stays a schema. */
  private async strings(value: unknown): Promise<unknown> {
    if (typeof value === 'string') return this.tokens.tokenizeText(value);
    if (Array.isArray(value)) return this.each(value, (item) => this.strings(item));
    if (!isObject(value)) return value;
    const entries: Array<[string, unknown]> = [];
    let changed = false;
    for (const [key, item] of Object.entries(value)) {
      const newKey = await this.tokens.tokenizeText(key);
      const newItem = await this.strings(item);
      changed ||= newKey !== key || newItem !== item;
      entries.push([newKey, newItem]);
    }
    return changed ? Object.fromEntries(entries) : value;
  }

  /** The list with each item through `tokenize`, in order; the same list when none changed. */
  private async each(list: unknown, tokenize: (item: unknown) => Promise<unknown>): Promise<unknown> {
    if (!Array.isArray(list)) return list;
    let copy: unknown[] | undefined;
    for (const [i, item] of list.entries()) {
      const tokenized = await tokenize(item);
      if (tokenized !== item) (copy ??= list.slice())[i] = tokenized;
    }
    return copy ?? list;
  }

  /** The object with the named fields through their functions, in the order named; the same object when none changed. */
  private async fields(object: unknown, by: Record<string, (value: unknown) => Promise<unknown>>): Promise<Json> {
    if (!isObject(object)) return object as Json;
    const record = object;
    let copy: Json | undefined;
    for (const [name, tokenize] of Object.entries(by)) {
      if (!Object.hasOwn(record, name)) continue;
      const value = record[name];
      const tokenized = await tokenize(value);
      if (tokenized !== value) (copy ??= { ...record })[name] = tokenized;
    }
    return copy ?? record;
  }
}
