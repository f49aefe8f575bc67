/**
 * What a script sees besides the language itself (prelude/), as TypeScript declarations: the type
 * check (check-program.ts) reads them, and docs/scripts.md shows them whole (a test holds the two
 * equal). `CodemodeTools` gets a member per tool from the catalog (tool-types.ts); what is
 * declared here is never stricter than what the prelude accepts, so a script that runs is not
 * refused for how it calls these.
 */
export const GUEST_GLOBALS = `/** A block of a tool's result, as MCP defines one: a single type, so \`content[0].text\` reads at once. */
interface ContentBlock {
  type: string; // "text", "image", "audio", "resource" or "resource_link"
  text?: string;
  data?: string; // base64, for image and audio
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  size?: number;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: any };
  annotations?: any;
  icons?: any;
  _meta?: any;
  [key: string]: any; // a block is as the tool sent it
}

/** What a tool call resolves to (MCP's CallToolResult); \`structuredContent\` is typed by the tool's outputSchema. */
interface ToolResult<Output = any> {
  content: ContentBlock[];
  structuredContent?: Output;
  isError?: boolean;
  _meta?: any;
  [key: string]: any; // a result is as the tool sent it
}

/** The tools, each by its name: \`tools["name"](args)\` or \`tools.name(args)\`; the catalog adds a typed member per tool. */
interface CodemodeTools {
  [name: string]: (args?: any) => Promise<ToolResult>;
}
declare const tools: CodemodeTools;

/** Every callable tool, with its schemas. */
declare const ALL_TOOLS: { name: string; description: string; inputSchema: any; outputSchema?: any }[];
/** A tool's declaration, as text. */
declare function describe(name: string): string;
/** Tools (and saved skills) ranked by how well they match the query, best first. */
declare function searchTools(query: string, limit?: number): { name: string; description: string; score: number }[];

declare const console: {
  log(...values: any[]): void;
  info(...values: any[]): void;
  warn(...values: any[]): void;
  error(...values: any[]): void;
  debug(...values: any[]): void;
};
/** Writes its values without a newline. */
declare function text(...values: any[]): void;
/** Adds a content block, or a tool result's blocks, to the answer. */
declare function show(blockOrResult: any): void;
/** Tells the client now; false when skipped for coming too soon after the last. */
declare function notify(payload: any): boolean;

declare function sleep(ms: number): Promise<void>;
declare function setTimeout(callback: (...args: any[]) => any, ms?: number, ...args: any[]): number;
declare function clearTimeout(id?: any): void;
declare function queueMicrotask(callback: () => void): void;
declare function atob(data: string): string;
declare function btoa(data: string): string;
declare const performance: { now(): number; [key: string]: any };

/** Memory between scripts: any value that becomes JSON. */
declare function store(key: string, value: unknown, options?: { ttlMs?: number }): Promise<void>;
declare function load(key: string): Promise<any>;
declare const state: {
  store(key: string, value: unknown, options?: { ttlMs?: number }): Promise<void>;
  load(key: string): Promise<any>;
  keys(prefix?: string): Promise<string[]>;
  remove(key: string): Promise<boolean>;
};

/** The upstreams' resources. */
declare const resources: {
  list(): Promise<{ uri: string; name: string; description?: string; mimeType?: string; [key: string]: any }[]>;
  templates(): Promise<{ uriTemplate: string; name: string; description?: string; mimeType?: string; [key: string]: any }[]>;
  read(uri: string): Promise<{
    contents?: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: any }[];
    isError?: boolean;
    content?: ContentBlock[];
    [key: string]: any;
  }>;
};

/** Saved skills: its own four calls, and any other name calls the skill of that name. */
interface CodemodeSkills {
  list(): Promise<{ name: string; description: string }[]>;
  describe(name: string): Promise<{ name: string; description: string; language: string; code: string; inputSchema?: any }>;
  save(skill: {
    name: string;
    description: string;
    code: string;
    inputSchema?: any;
    language?: string;
    overwrite?: boolean;
  }): Promise<{ name: string; description: string; digest: string }>;
  call(name: string, input?: any): Promise<any>;
  [name: string]: (...args: any[]) => Promise<any>;
}
declare const skills: CodemodeSkills;

/** Headers of a fetch's request or response: names in any case; a response's are read-only. */
declare class Headers {
  constructor(init?: any);
  append(name: string, value: string): void;
  set(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: any): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
/** What a fetch resolves to; its body is read once (clone() first to read it twice). */
declare class Response {
  constructor(body?: any, init?: any);
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  readonly type: string;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<any>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  clone(): Response;
}
/** An HTTP request the server makes for the script, to an origin the config lists (settings.fetch). */
declare function fetch(
  url: string,
  init?: { method?: string; headers?: any; body?: any; redirect?: string; [key: string]: any },
): Promise<Response>;

/** A call the server refused before sending it: nothing happened; its message says whether a retry can pass; a fetch's names its rule in \`code\` (FETCH_ORIGIN, …). */
declare class ToolRefused extends Error {
  readonly code?: string;
}
/** A call past its timeout: the tool may still take effect. */
declare class TimeoutError extends Error {}
/** A result too large for the script's memory: the call took effect. */
declare class ResultTooLarge extends Error {}
declare class InternalError extends Error {}
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
  readonly code: number;
}
`;
