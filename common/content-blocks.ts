/**
 * The content blocks a script may show, field by field: the prelude copies exactly these fields
 * out of what the script gives show(), and the server takes nothing else from the child. The
 * block types are MCP's; their other fields (annotations, _meta) are left out.
 */

/** The string fields of a block type: those it must have, and those it may. */
export interface BlockFields {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

const TEXT: BlockFields = { required: ['text'], optional: [] };
const MEDIA: BlockFields = { required: ['data', 'mimeType'], optional: [] };
const RESOURCE_LINK: BlockFields = { required: ['uri', 'name'], optional: ['mimeType', 'title', 'description'] };
/** A `resource` block's one field, `resource`, is an object: these are its fields, and it has exactly one of text and blob. */
export const RESOURCE_CONTENTS: BlockFields = { required: ['uri'], optional: ['mimeType', 'text', 'blob'] };
const NESTED_RESOURCE: BlockFields = { required: [], optional: [] };

/**
 * A content block as a script shows it and an answer carries it: MCP's block types, with the
 * fields blockFields names (the server's own type, so that the layers below the MCP surface need
 * no SDK import; an MCP `ContentBlock` takes each of these).
 */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | {
      readonly type: 'resource';
      readonly resource:
        | { readonly uri: string; readonly mimeType?: string; readonly text: string }
        | { readonly uri: string; readonly mimeType?: string; readonly blob: string };
    }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly title?: string;
      readonly description?: string;
    };

/** 100: blocks in one show() or one returned tool result, and in one answer; past it show() throws, and an answer leaves the rest out. */
export const SHOWN_BLOCKS_MAX = 100;

/** JSON values in one copied block at most (a resource_link: the object, type and five fields), for counting before parsing. */
export const BLOCK_VALUES_MAX = 8;

/**
 * The `Content` type every declaration's result names, as MCP defines a content block: describe()
 * gives it after the declaration, so what it returns reads whole; `codemode-mcp tools` prints it
 * once.
 */
export const CONTENT_TYPE =
  'type Content =\n' +
  '  | { type: "text"; text: string }\n' +
  '  | { type: "image" | "audio"; data: string /* base64 */; mimeType: string }\n' +
  '  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string /* base64 */ } }\n' +
  '  | { type: "resource_link"; uri: string; name: string; mimeType?: string };';

/** What show() takes, for its messages. */
export const BLOCK_SHAPES =
  '{type: "text", text} | {type: "image" | "audio", data (base64), mimeType} | {type: "resource", resource: {uri, mimeType?, text | blob}} | {type: "resource_link", uri, name}';

/** The fields of a block type show() takes, or undefined for any other type (a switch: `type` is the script's string). */
export function blockFields(type: string): BlockFields | undefined {
  switch (type) {
    case 'text':
      return TEXT;
    case 'image':
    case 'audio':
      return MEDIA;
    case 'resource_link':
      return RESOURCE_LINK;
    case 'resource':
      return NESTED_RESOURCE;
    default:
      return undefined;
  }
}
