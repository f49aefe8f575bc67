/**
 * show(block | toolResult): content blocks for the answer, after its text: an image the model
 * should see, a resource, a tool's whole result. The value is turned into JSON once (running the
 * script's own toJSON, getters and Proxy traps, as for any value), read back as plain data, and
 * each block copied field by field into objects of the prelude's own: what goes to the host is
 * exactly the fields common/content-blocks.ts names, as strings.
 */
import { BLOCK_SHAPES, RESOURCE_CONTENTS, SHOWN_BLOCKS_MAX, blockFields, type BlockFields } from '../common/content-blocks.js';
import { describeThrown } from './errors.js';
import { host } from './host.js';
import {
  ArrayIsArray,
  ErrorConstructor,
  JSONParse,
  JSONStringify,
  ObjectHasOwn,
  RangeErrorConstructor,
  TypeErrorConstructor,
  blank,
  defineValue,
  globalObject,
  list,
  newError,
} from './intrinsics.js';

type Plain = Record<string, unknown>;

export function installShow(): void {
  const show = (value: unknown): void => {
    const blocks = blocksOf(value);
    if (blocks.length === 0) return;
    const answer = host.show(JSONStringify(blocks));
    if (answer !== '') throw newError(ErrorConstructor, answer);
  };
  defineValue(globalObject, 'show', show);
}

/** The blocks to show, copied: one block, or every block of a tool result's content. */
function blocksOf(value: unknown): Plain[] {
  let json: unknown;
  try {
    json = JSONStringify(value);
  } catch (error) {
    throw newError(TypeErrorConstructor, `show(x): x can't become JSON: ${describeThrown(error)}`);
  }
  if (typeof json !== 'string') throw notABlock('it became nothing as JSON');
  // Read back as plain data: no getter, toJSON or Proxy of the script's is behind it any more.
  const parsed = JSONParse(json) as unknown;
  const copies = list<Plain>();
  if (isRecord(parsed) && ObjectHasOwn(parsed, 'content')) {
    const content = parsed.content;
    if (!ArrayIsArray(content)) throw notABlock('its content is not a list of blocks');
    if (content.length > SHOWN_BLOCKS_MAX) {
      throw newError(
        RangeErrorConstructor,
        `show(x): x.content has ${content.length} blocks, past the ${SHOWN_BLOCKS_MAX} one show() may take`,
      );
    }
    for (let i = 0; i < content.length; i++) copies[i] = copyBlock(content[i], `x.content[${i}]`);
    return copies;
  }
  if (isRecord(parsed) && ObjectHasOwn(parsed, 'type')) {
    copies[0] = copyBlock(parsed, 'x');
    return copies;
  }
  throw notABlock(ArrayIsArray(parsed) ? 'it is a list (show each block, or a tool result)' : 'it has neither type nor content');
}

function copyBlock(item: unknown, where: string): Plain {
  if (!isRecord(item)) throw newError(TypeErrorConstructor, `show(x): ${where} is not a content block: ${BLOCK_SHAPES}`);
  const type = ObjectHasOwn(item, 'type') ? item.type : undefined;
  const fields = typeof type === 'string' ? blockFields(type) : undefined;
  if (fields === undefined) {
    throw newError(
      TypeErrorConstructor,
      `show(x): ${where}.type must be "text", "image", "audio", "resource" or "resource_link"; got ${typeof type === 'string' ? JSONStringify(type) : typeof type}`,
    );
  }
  const copy = copyFields(item, fields, where);
  copy.type = type;
  if (type !== 'resource') return copy;
  const resource = ObjectHasOwn(item, 'resource') ? item.resource : undefined;
  if (!isRecord(resource))
    throw newError(TypeErrorConstructor, `show(x): ${where}.resource must be an object {uri, mimeType?, text | blob}`);
  const contents = copyFields(resource, RESOURCE_CONTENTS, `${where}.resource`);
  if (ObjectHasOwn(contents, 'text') === ObjectHasOwn(contents, 'blob')) {
    throw newError(TypeErrorConstructor, `show(x): ${where}.resource must have one of text and blob`);
  }
  copy.resource = contents;
  return copy;
}

/** The block's required and optional fields, each a string, into an object of the prelude's own. */
function copyFields(item: Plain, fields: BlockFields, where: string): Plain {
  const copy = blank<Plain>();
  for (let i = 0; i < fields.required.length; i++) {
    const name = fields.required[i]!;
    if (!ObjectHasOwn(item, name) || typeof item[name] !== 'string') {
      throw newError(TypeErrorConstructor, `show(x): ${where}.${name} must be a string: ${BLOCK_SHAPES}`);
    }
    copy[name] = item[name];
  }
  for (let i = 0; i < fields.optional.length; i++) {
    const name = fields.optional[i]!;
    if (!ObjectHasOwn(item, name)) continue;
    if (typeof item[name] !== 'string') throw newError(TypeErrorConstructor, `show(x): ${where}.${name} must be a string`);
    copy[name] = item[name];
  }
  return copy;
}

function isRecord(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !ArrayIsArray(value);
}

function notABlock(why: string): Error {
  return newError(
    TypeErrorConstructor,
    `show(x): x must be a content block or a tool result ({content: [...]}), but ${why}. Blocks: ${BLOCK_SHAPES}`,
  );
}
