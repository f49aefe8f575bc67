import type { ToolEntry } from '../../protocol/contract.js';
import { ScriptChild, type ScriptChildOptions } from '../../src/script-host/script-child.js';
import { Script, type ScriptLimits } from '../../src/script-host/script.js';
import { ToolRefusedError } from '../../src/support/errors.js';
import type {
  FetchCaller,
  ResourceCaller,
  ResourceRequest,
  ScriptApis,
  SkillsCaller,
  StateCaller,
  ToolCaller,
} from '../../src/script-host/apis.js';
import type { ScriptReturn } from '../../src/script-host/types.js';

export const TEST_LIMITS: ScriptLimits = {
  toolCallTimeoutMs: 60_000,
  scriptLifetimeMs: 60_000,
  memoryMaxBytes: 32 * 1024 * 1024,
  notifyMax: 20,
  showMaxBytes: 4 * 1024 * 1024,
};

export function toolEntries(...names: string[]): ToolEntry[] {
  return names.map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object' },
    declaration: `tools[${JSON.stringify(name)}](args: object): Promise<ToolResult>`,
  }));
}

/**
 * A tool that answers only when its call is cancelled, and a promise that settles once `count`
 * calls have reached it: tests wait on that, not on a guess of how long a child takes to start.
 */
export function countedHangingTool(count = 1): { readonly callTool: ToolCaller; readonly reached: Promise<void> } {
  let calls = 0;
  let reached: () => void = () => {};
  const promise = new Promise<void>((resolve) => (reached = resolve));
  const callTool: ToolCaller = (_name, _args, signal) => {
    if (++calls === count) reached();
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
  };
  return { callTool, reached: promise };
}

/** Starts a script and resolves once its first output has arrived. */
export async function startScriptPrinting(code: string, options: StartOptions = {}): Promise<Script> {
  let printed: () => void = () => {};
  const first = new Promise<void>((resolve) => (printed = resolve));
  const script = startScript(code, {
    ...options,
    onOutput: (text) => {
      printed();
      options.onOutput?.(text);
    },
  });
  await first;
  return script;
}

/**
 * Resources for scripts, answered from memory: two listed, one template; a read answers with its
 * URI, `test://refused` is refused as an unknown URI would be, and `test://hang` answers only
 * when cancelled. The calls are counted in `seen`, and the most ever out at once in `peak`.
 */
export function memoryResources(): { readonly callResource: ResourceCaller; readonly seen: ResourceRequest[]; peak: number } {
  const state = { seen: [] as ResourceRequest[], peak: 0, out: 0 };
  const answer = async (request: ResourceRequest, signal: AbortSignal): Promise<unknown> => {
    switch (request.call) {
      case 'resources.list':
        return [
          { uri: 'test://a', name: 'a' },
          { uri: 'test://b', name: 'b' },
        ];
      case 'resources.templates':
        return [{ uriTemplate: 'test://item/{id}', name: 'item' }];
      case 'resources.read':
        if (request.uri === 'test://refused')
          throw new ToolRefusedError('RESOURCE_UNKNOWN', request.label, 'no upstream lists it');
        if (request.uri === 'test://hang') {
          return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        }
        return { contents: [{ uri: request.uri, text: `read ${request.uri}` }] };
    }
  };
  const callResource: ResourceCaller = async (request, signal) => {
    state.seen.push(request);
    state.peak = Math.max(state.peak, ++state.out);
    try {
      // One turn later, so that calls made together are out together.
      await new Promise((resolve) => setImmediate(resolve));
      return await answer(request, signal);
    } finally {
      state.out--;
    }
  };
  return {
    callResource,
    seen: state.seen,
    get peak() {
      return state.peak;
    },
  };
}

/** Answers every call with its arguments as text. */
export const echoTool: ToolCaller = async (_name, args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });

/** A test's host APIs, one caller each: the echo tool unless it gives a tool caller, and no other API unless given. */
export interface TestApis {
  readonly callTool?: ToolCaller;
  readonly callResource?: ResourceCaller;
  readonly callState?: StateCaller;
  readonly callSkills?: SkillsCaller;
  readonly callFetch?: FetchCaller;
}

/** The ScriptApis object of a test's callers. */
export function apisOf(options: TestApis): ScriptApis {
  return {
    tools: options.callTool ?? echoTool,
    ...(options.callResource ? { resources: options.callResource } : {}),
    ...(options.callState ? { state: options.callState } : {}),
    ...(options.callSkills ? { skills: options.callSkills } : {}),
    ...(options.callFetch ? { fetch: options.callFetch } : {}),
  };
}

export interface StartOptions extends TestApis {
  readonly tools?: ToolEntry[];
  readonly limits?: Partial<ScriptLimits>;
  readonly entry?: string;
  readonly onNotify?: (payload: string) => void;
  readonly onOutput?: (text: string) => void;
  /** Where the child's stderr lines go; dropped by default. */
  readonly log?: (line: string) => void;
}

/** Each script's child, so that runScript can wait until it has exited and its directory is removed. */
const childOf = new WeakMap<Script, ScriptChild>();

export function startScript(code: string, options: StartOptions = {}): Script {
  const limits = { ...TEST_LIMITS, ...options.limits };
  const childOptions: ScriptChildOptions = {
    memoryMaxBytes: limits.memoryMaxBytes,
    notifyMax: limits.notifyMax,
    showMaxBytes: limits.showMaxBytes,
    log: options.log ?? (() => {}),
    ...(options.entry ? { entry: options.entry } : {}),
  };
  const child = new ScriptChild(childOptions);
  const script = new Script(child, {
    id: 'test',
    code,
    tools: options.tools ?? toolEntries('echo'),
    apis: apisOf(options),
    limits,
    ...(options.onNotify ? { onNotify: options.onNotify } : {}),
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
  });
  childOf.set(script, child);
  return script;
}

/**
 * Runs a script to its ending and returns that return, once its child has exited and its
 * directory is removed: a test file that ends sooner leaves the directory behind.
 */
export async function runScript(code: string, options: StartOptions = {}): Promise<ScriptReturn> {
  const script = startScript(code, options);
  await script.ended;
  const ret = await script.observe(0);
  await childOf.get(script)!.gone;
  return ret;
}
