/**
 * Content blocks for an answer: those a script shows (show()), and the image, audio and resource
 * blocks of a tool result it returns. Each answer carries at most showMaxBytes of them (and
 * SHOWN_BLOCKS_MAX); the rest are left out and counted, and the answer says so.
 */
import {
  BLOCK_VALUES_MAX,
  RESOURCE_CONTENTS,
  SHOWN_BLOCKS_MAX,
  blockFields,
  type BlockFields,
  type ContentBlock,
} from '../../common/content-blocks.js';
import { SHOW_MAX_BYTES_LIMIT } from '../../protocol/contract.js';
import { parseCountedJson } from '../../protocol/frames.js';

/** What an answer carries of the blocks shown since the last one. */
export interface Shown {
  readonly blocks: readonly ContentBlock[];
  /** Blocks left out for the cap, and their bytes of JSON. */
  readonly leftOut: { readonly blocks: number; readonly bytes: number };
}

/**
 * The blocks of a show message from the child, or null when they are not exactly what the
 * prelude sends: a JSON list of 1 to SHOWN_BLOCKS_MAX MCP content blocks with only the fields
 * common/content-blocks.ts names. Values are counted before the text is parsed.
 */
export function parseShownBlocks(text: string): ContentBlock[] | null {
  if (text.length > SHOW_MAX_BYTES_LIMIT) return null;
  const parsed: unknown = parseCountedJson(text, 1 + SHOWN_BLOCKS_MAX * BLOCK_VALUES_MAX)?.value;
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > SHOWN_BLOCKS_MAX) return null;
  return (parsed as unknown[]).every((block) => isValidBlock(block) && hasOnlyItsFields(block as Record<string, unknown>))
    ? (parsed as ContentBlock[])
    : null;
}

/** A block of a returned tool result, as show() would have sent it (its own fields only), or undefined when it is not one show() takes. */
export function showableCopy(block: unknown): ContentBlock | undefined {
  if (!isValidBlock(block)) return undefined;
  const source = block as Record<string, unknown>;
  const copy = pick(source, ['type', ...fieldsOf(source.type as string)]);
  if (source.type === 'resource')
    copy.resource = pick(source.resource as Record<string, unknown>, [
      ...RESOURCE_CONTENTS.required,
      ...RESOURCE_CONTENTS.optional,
    ]);
  return copy as ContentBlock;
}

/** One answer's blocks, up to `maxBytes` of JSON and SHOWN_BLOCKS_MAX blocks. */
export class ShownBlocks {
  private blocks: ContentBlock[] = [];
  private bytes = 0;
  private leftOut = { blocks: 0, bytes: 0 };

  constructor(private readonly maxBytes: number) {}

  /** Adds each block that still fits; returns, for each, whether it is in the answer. */
  add(blocks: readonly ContentBlock[]): boolean[] {
    return blocks.map((block) => {
      const size = Buffer.byteLength(JSON.stringify(block), 'utf8');
      if (this.bytes + size > this.maxBytes || this.blocks.length >= SHOWN_BLOCKS_MAX) {
        this.leftOut = { blocks: this.leftOut.blocks + 1, bytes: this.leftOut.bytes + size };
        return false;
      }
      this.blocks.push(block);
      this.bytes += size;
      return true;
    });
  }

  /** The blocks since the last answer; the next answer starts empty. */
  take(): Shown {
    const shown = { blocks: this.blocks, leftOut: this.leftOut };
    this.blocks = [];
    this.bytes = 0;
    this.leftOut = { blocks: 0, bytes: 0 };
    return shown;
  }
}

/**
 * A block of a type show() takes, as MCP defines it: each field it needs, its other fields
 * strings (fields it doesn't take are not looked at: showableCopy leaves them out), `data` and
 * `blob` base64 by atob's rule (the MCP SDK's Base64Schema), and a `resource` with exactly one
 * of text and blob.
 */
function isValidBlock(block: unknown): boolean {
  if (!isRecord(block) || typeof block.type !== 'string') return false;
  const fields = blockFields(block.type);
  if (fields === undefined) return false;
  if (block.type !== 'resource') return hasStringFields(block, fields) && isBase64OrAbsent(block.data);
  const { resource } = block;
  return (
    isRecord(resource) &&
    hasStringFields(resource, RESOURCE_CONTENTS) &&
    (typeof resource.text === 'string') !== (typeof resource.blob === 'string') &&
    isBase64OrAbsent(resource.blob)
  );
}

function isBase64OrAbsent(value: unknown): boolean {
  if (value === undefined) return true;
  try {
    atob(value as string);
    return true;
  } catch {
    return false;
  }
}

function hasStringFields(record: Record<string, unknown>, fields: BlockFields): boolean {
  return (
    fields.required.every((field) => typeof record[field] === 'string') &&
    fields.optional.every((field) => record[field] === undefined || typeof record[field] === 'string')
  );
}

/** The block holds no field show() does not send: the child has no way to add any. */
function hasOnlyItsFields(block: Record<string, unknown>): boolean {
  const allowed = new Set(['type', ...fieldsOf(block.type as string)]);
  if (!Object.keys(block).every((key) => allowed.has(key))) return false;
  if (block.type !== 'resource') return true;
  const inner = new Set([...RESOURCE_CONTENTS.required, ...RESOURCE_CONTENTS.optional]);
  return Object.keys(block.resource as object).every((key) => inner.has(key));
}

function fieldsOf(type: string): string[] {
  const fields = blockFields(type);
  if (fields === undefined) return [];
  return type === 'resource' ? ['resource'] : [...fields.required, ...fields.optional];
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(source, key)) copy[key] = source[key];
  return copy;
}

/**
 * When the value is a tool result with image, audio or resource blocks, those blocks go into the
 * answer as blocks of their own, and the value keeps a note where their data was: the data
 * travels once, as the block, not again as base64 inside the value's JSON.
 */
export function liftResultBlocks(valueJson: string, shown: ShownBlocks): string {
  // Only an object with content can be a tool result: any other value is not parsed again.
  if (!valueJson.startsWith('{') || !valueJson.includes('"content":[')) return valueJson;
  const value = JSON.parse(valueJson) as unknown;
  if (!isRecord(value) || !Array.isArray(value.content)) return valueJson;
  const content: unknown[] = value.content;
  const lifted = content.flatMap((block, index) => {
    const copy = isRecord(block) && block.type !== 'text' ? showableCopy(block) : undefined;
    return copy === undefined ? [] : [{ index, copy }];
  });
  if (lifted.length === 0) return valueJson;
  const kept = shown.add(lifted.map((entry) => entry.copy));
  const noted = [...content];
  for (const [i, { index }] of lifted.entries()) noted[index] = withNote(content[index] as Record<string, unknown>, kept[i]!);
  return JSON.stringify({ ...value, content: noted });
}

/** The block with its payload (data, or a resource's text or blob) replaced by a note of where it went. */
function withNote(block: Record<string, unknown>, kept: boolean): Record<string, unknown> {
  const note = (payload: unknown): string =>
    `[${typeof payload === 'string' ? payload.length : 0} characters: ${kept ? 'shown as a block of this answer' : 'left out of this answer, past its showMaxBytes'}]`;
  if (typeof block.data === 'string') return { ...block, data: note(block.data) };
  const resource = block.resource;
  if (isRecord(resource)) {
    const field = typeof resource.blob === 'string' ? 'blob' : typeof resource.text === 'string' ? 'text' : undefined;
    if (field !== undefined) return { ...block, resource: { ...resource, [field]: note(resource[field]) } };
  }
  return block;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
