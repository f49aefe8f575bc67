import type { Calls } from './calls.js';
import { ResultTooLarge, TimeoutError, ToolRefused, describeThrown } from './errors.js';
import { host } from './host.js';
import {
  ArrayIsArray,
  AsyncFunctionConstructor,
  ErrorConstructor,
  ErrorIsError,
  JSONParse,
  JSONStringify,
  MapDelete,
  MapGet,
  MapSet,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectKeys,
  PromiseThen,
  ProxyConstructor,
  ReflectApply,
  ReflectConstruct,
  SetHas,
  SyntaxErrorConstructor,
  TypeErrorConstructor,
  blank,
  defineValue,
  dictionary,
  globalObject,
  newError,
  stringOf,
} from './intrinsics.js';
import { QUIET_NAMES } from './tools.js';

/** What `skills.get` answers: the skill as its files hold it (src/skills/skills-api.ts). */
interface SkillAnswer {
  readonly name: string;
  readonly description: string;
  readonly language: string;
  readonly code: string;
  readonly inputSchema?: Record<string, unknown>;
}

/** A skill made ready to call in this script: its body compiled, its schema kept. */
interface ReadySkill {
  readonly body: (input: unknown) => Promise<unknown>;
  readonly inputSchema: Record<string, unknown> | undefined;
}

type SkillFunction = (input?: unknown) => Promise<unknown>;

/**
 * `skills`: code a script saved, called by later ones. `skills.save({...})`, `skills.list()`,
 * `skills.describe(name)`, and a skill called by its name, `skills.<name>(input)`,
 * `skills["my-skill"](input)` or `skills.call(name, input)`. `skills` answers any name (a Proxy,
 * as `tools` is), so which skills exist is asked of the server when one is called, not when the
 * script starts; list, describe, save and call are its own, and the server refuses to save a
 * skill under them.
 *
 * A skill runs here, in the calling script's VM and within its limits: fetched once per script
 * (`skills.get`), its input checked against its inputSchema, its body (TypeScript stripped by the
 * engine) compiled with the AsyncFunction constructor captured at install, with `input` in scope.
 */
export function installSkills(calls: Calls): void {
  /** By name: the skill fetched and compiled, once per script (a save in the script drops it). */
  const ready = dictionary<string, Promise<unknown>>();
  /** By name: the function `skills.<name>` gives, so the same name gives the same function. */
  const named = dictionary<string, SkillFunction>();

  const fetchSkill = (name: string): Promise<unknown> => {
    const cached = MapGet(ready, name) as Promise<unknown> | undefined;
    if (cached !== undefined) return cached;
    const label = `skills[${JSONStringify(name)}](input)`;
    // Compiled once the answer is here, in a reaction of its own: a syntax error rejects this call only.
    const fetched = PromiseThen(calls.callApi('skills.get', `{"name":${JSONStringify(name)},"run":true}`, label), (answer) =>
      compile(answer as SkillAnswer),
    );
    MapSet(ready, name, fetched);
    // A refusal (no such skill) is not kept: a later call asks again.
    void PromiseThen(fetched, undefined, () => MapDelete(ready, name));
    return fetched;
  };

  const callSkill = (name: string, input: unknown): Promise<unknown> =>
    PromiseThen(fetchSkill(name), (skill) => {
      const { body, inputSchema } = skill as ReadySkill;
      if (inputSchema !== undefined) {
        const problem = schemaProblem(inputSchema, input, 'input');
        if (problem !== '') {
          throw newError(TypeErrorConstructor, `skills[${JSONStringify(name)}](input): ${problem}; the skill did not run`);
        }
      }
      return PromiseThen(ReflectApply(body, undefined, [input]), undefined, (error) => {
        throw failedIn(name, error);
      });
    });

  const skillCall = (name: unknown, input?: unknown): Promise<unknown> => {
    if (typeof name !== 'string') {
      throw newError(TypeErrorConstructor, `skills.call(name, input): name must be a string, not ${typeOf(name)}`);
    }
    return callSkill(name, input);
  };
  const list = (): Promise<unknown> => calls.callApi('skills.list', '{}', 'skills.list()');
  const describe = (name?: unknown): Promise<unknown> => {
    if (typeof name !== 'string') {
      throw newError(TypeErrorConstructor, `skills.describe(name): name must be a string, not ${typeOf(name)}`);
    }
    return calls.callApi('skills.get', `{"name":${JSONStringify(name)}}`, `skills.describe(${JSONStringify(name)})`);
  };
  const save = (spec?: unknown): Promise<unknown> => {
    const saving = saveArgs(spec);
    MapDelete(ready, saving.name);
    return calls.callApi('skills.save', saving.json, `skills.save({name: ${JSONStringify(saving.name)}})`);
  };

  const own = blank<Record<string, unknown>>();
  own.list = list;
  own.describe = describe;
  own.save = save;
  own.call = skillCall;
  ObjectFreeze(own);
  const handler = blank<ProxyHandler<object>>();
  handler.get = (target, key) => {
    if (typeof key !== 'string') return undefined;
    if (ObjectHasOwn(target, key)) return (target as Record<string, unknown>)[key];
    if (SetHas(QUIET_NAMES, key)) return undefined;
    let fn = MapGet(named, key) as SkillFunction | undefined;
    if (fn === undefined) {
      fn = (input?: unknown) => callSkill(key, input);
      MapSet(named, key, fn);
    }
    return fn;
  };
  defineValue(globalObject, 'skills', new ProxyConstructor(own, handler));
}

/** The skill's body as a function of `input`; its syntax error, thrown, names the skill. */
function compile(skill: SkillAnswer): ReadySkill {
  const name = skill.name;
  let code = skill.code;
  if (skill.language === 'typescript') {
    const stripped = JSONParse(host.stripTypes(code)) as { code?: string; error?: string };
    if (stripped.error !== undefined) {
      throw newError(SyntaxErrorConstructor, `skill ${JSONStringify(name)}: ${stripped.error}`);
    }
    code = stripped.code!;
  }
  let body: (input: unknown) => Promise<unknown>;
  try {
    body = ReflectConstruct(AsyncFunctionConstructor, ['input', code]);
  } catch (error) {
    throw newError(SyntaxErrorConstructor, `skill ${JSONStringify(name)}: ${describeThrown(error)}`);
  }
  const ready = blank<{ body: (input: unknown) => Promise<unknown>; inputSchema: Record<string, unknown> | undefined }>();
  ready.body = body;
  ready.inputSchema = ObjectHasOwn(skill, 'inputSchema') ? skill.inputSchema : undefined;
  return ready;
}

const OWN_ERRORS = [ToolRefused, TimeoutError, ResultTooLarge] as const;

/**
 * What a skill's failure becomes for its caller: the same message with the skill's name before
 * it (`skill "triage": TypeError: …`, and for a skill called by another, each name in turn), the
 * thrown value as its `cause`. ToolRefused, TimeoutError and ResultTooLarge stay what they were,
 * so a caller's catch by class still holds.
 */
function failedIn(name: string, error: unknown): Error {
  let kind: (new (message: string) => Error) | undefined;
  let text = stringOf(error);
  if (ErrorIsError(error)) {
    const proto: unknown = ObjectGetPrototypeOf(error);
    for (let i = 0; i < OWN_ERRORS.length; i++) if (proto === OWN_ERRORS[i]!.prototype) kind = OWN_ERRORS[i];
    let errorName = 'Error';
    try {
      errorName = stringOf((error as { name?: unknown }).name);
    } catch {
      // A name that can't be read: Error says enough.
    }
    text = `${errorName}: ${describeThrown(error)}`;
  }
  const wrapped = newError(ErrorConstructor, `skill ${JSONStringify(name)}: ${text}`, kind);
  const cause = blank<PropertyDescriptor>();
  cause.value = error;
  cause.writable = true;
  cause.configurable = true;
  cause.enumerable = false;
  ObjectDefineProperty(wrapped, 'cause', cause);
  return wrapped;
}

/**
 * Where `value` breaks `schema`, as `input.repo must be a string, not number`, or '': a small
 * subset of JSON Schema (type, required, properties, items, enum), which is what a skill's input
 * schema is for; other keywords are not checked.
 */
function schemaProblem(schema: Record<string, unknown>, value: unknown, at: string): string {
  if (ObjectHasOwn(schema, 'enum') && ArrayIsArray(schema.enum)) {
    const choices = schema.enum as unknown[];
    let found = false;
    for (let i = 0; i < choices.length; i++) if (choices[i] === value) found = true;
    if (!found) return `${at} must be one of ${JSONStringify(choices)}; got ${shown(value)}`;
  }
  if (ObjectHasOwn(schema, 'type')) {
    const wanted = schema.type;
    const types = ArrayIsArray(wanted) ? (wanted as unknown[]) : [wanted];
    let fits = false;
    for (let i = 0; i < types.length; i++) if (hasType(value, types[i])) fits = true;
    if (!fits) {
      const said = ArrayIsArray(wanted) ? (wanted as unknown[]) : [wanted];
      let names = '';
      for (let i = 0; i < said.length; i++) names = i === 0 ? stringOf(said[i]) : `${names} or ${stringOf(said[i])}`;
      return `${at} must be ${names}, not ${jsonType(value)}`;
    }
  }
  if (typeof value === 'object' && value !== null && !ArrayIsArray(value)) {
    const fields = value as Record<string, unknown>;
    if (ObjectHasOwn(schema, 'required') && ArrayIsArray(schema.required)) {
      const required = schema.required as unknown[];
      for (let i = 0; i < required.length; i++) {
        const field = required[i];
        if (typeof field === 'string' && fields[field] === undefined) return `${at}.${field} is required but missing`;
      }
    }
    if (ObjectHasOwn(schema, 'properties') && typeof schema.properties === 'object' && schema.properties !== null) {
      const properties = schema.properties as Record<string, unknown>;
      const keys = ObjectKeys(properties);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const inner = properties[key];
        const field = fields[key];
        if (field === undefined || typeof inner !== 'object' || inner === null) continue;
        const problem = schemaProblem(inner as Record<string, unknown>, field, `${at}.${key}`);
        if (problem !== '') return problem;
      }
    }
  }
  if (ArrayIsArray(value) && ObjectHasOwn(schema, 'items') && typeof schema.items === 'object' && schema.items !== null) {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const problem = schemaProblem(schema.items as Record<string, unknown>, items[i], `${at}[${i}]`);
      if (problem !== '') return problem;
    }
  }
  return '';
}

function hasType(value: unknown, type: unknown): boolean {
  if (type === 'integer') return typeof value === 'number' && value % 1 === 0;
  if (type === 'number') return typeof value === 'number' && value === value;
  return jsonType(value) === type;
}

/** The JSON Schema type of a value: null and array apart from object. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (ArrayIsArray(value)) return 'array';
  return typeof value;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSONStringify(value);
  return typeof value === 'object' || typeof value === 'function' ? jsonType(value) : stringOf(value);
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/** `skills.save`'s fields as the call's JSON, each checked here (strings, a schema object, a boolean), and the name. */
function saveArgs(spec: unknown): { readonly name: string; readonly json: string } {
  const label = 'skills.save({name, description, code, inputSchema?, overwrite?})';
  if (typeof spec !== 'object' || spec === null) {
    throw newError(TypeErrorConstructor, `${label}: give an object, not ${typeOf(spec)}`);
  }
  const fields = spec as Record<string, unknown>;
  const name = fields.name;
  const description = fields.description;
  const code = fields.code;
  const textField = (field: string, value: unknown): string => {
    if (typeof value !== 'string') {
      throw newError(TypeErrorConstructor, `${label}: ${field} must be a string, not ${typeOf(value)}`);
    }
    return JSONStringify(value);
  };
  if (typeof name !== 'string') throw newError(TypeErrorConstructor, `${label}: name must be a string, not ${typeOf(name)}`);
  let json = `{"name":${JSONStringify(name)},"description":${textField('description', description)},"code":${textField('code', code)}`;
  const inputSchema = fields.inputSchema;
  if (inputSchema !== undefined) {
    if (typeof inputSchema !== 'object' || inputSchema === null || ArrayIsArray(inputSchema)) {
      throw newError(TypeErrorConstructor, `${label}: inputSchema must be a JSON Schema object, not ${jsonType(inputSchema)}`);
    }
    let schemaJson: unknown;
    try {
      schemaJson = JSONStringify(inputSchema);
    } catch (error) {
      throw newError(TypeErrorConstructor, `${label}: inputSchema can't become JSON: ${describeThrown(error)}`);
    }
    if (typeof schemaJson !== 'string' || schemaJson[0] !== '{') {
      throw newError(TypeErrorConstructor, `${label}: inputSchema must become a JSON object`);
    }
    json = `${json},"inputSchema":${schemaJson}`;
  }
  const language = fields.language;
  if (language !== undefined) json = `${json},"language":${textField('language', language)}`;
  const overwrite = fields.overwrite;
  if (overwrite !== undefined) {
    if (typeof overwrite !== 'boolean') {
      throw newError(TypeErrorConstructor, `${label}: overwrite must be true or false, not ${typeOf(overwrite)}`);
    }
    json = `${json},"overwrite":${overwrite ? 'true' : 'false'}`;
  }
  const args = blank<{ name: string; json: string }>();
  args.name = name;
  args.json = `${json}}`;
  return args;
}
