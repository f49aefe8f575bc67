/**
 * Which of the compiler's errors refuse a script: only names and shapes against the declarations
 * (issue 47). A misspelled global; a field or method that a declared type lacks (a tool's
 * structured result, a tool result, a global, a promise of one: `await` forgotten); calling what
 * a declared type says is no function; a tool's or a global's arguments against its parameters;
 * a tool name that is no tool. Everything else the compiler says about the script's own code
 * (a type it inferred, `Date - Date`, a comparison it thinks can't hold) is left out: untyped
 * JavaScript is not an error. Each question about a type is a round trip to the compiler, asked
 * only of a diagnostic that may count.
 */
import type * as Ast from 'typescript-native/unstable/ast';
import type { Checker, Diagnostic, Project, Symbol as TsSymbol, Type } from 'typescript-native/unstable/async';

/** `Cannot find name 'x'` (did you mean, shorthand property). */
const NAME_CODES = new Set([2304, 2552, 18004]);
/**
 * `Cannot find name 'process'. Do you need to install type definitions for node?` and its kin
 * (jQuery, a test runner, the DOM library): names a script doesn't have either, said in its terms.
 */
const HOST_NAME_CODES = new Set([2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593]);
/** `Property 'x' does not exist on type 'T'` (did you mean). */
const PROPERTY_CODES = new Set([2339, 2551]);
/** `This expression is not callable` (did you mean new). */
const CALL_CODES = new Set([2349, 2348]);
/** An argument that doesn't fit its parameter: assignability, missing or unknown properties, argument counts. */
const ARGUMENT_CODES = new Set([2322, 2345, 2353, 2559, 2561, 2739, 2740, 2741, 2769, 2820, 2554, 2555]);
/** `Did you forget to use 'await'?`: a hint the compiler gives beside its message, which belongs in it. */
const HINT_CODES = new Set([2773]);

/**
 * Names a `tools[...]` lookup answers with undefined rather than throwing (prelude/tools.ts's
 * QUIET_NAMES, which lives in the guest): no "not a tool" for them.
 */
const QUIET_TOOL_NAMES = new Set(['then', 'toJSON', 'constructor', 'valueOf', 'toString']);

/** The compiler's AST module: its node kinds and tests. */
type AstModule = typeof Ast;

/** A diagnostic that counts, still in the wrapped file's positions. */
export interface CountedDiagnostic {
  readonly start: number;
  readonly code: number;
  readonly message: string;
  /** The tool it concerns: the one called, or whose result is read. */
  readonly tool?: string;
  /** A tool name that is no tool. */
  readonly unknownTool?: string;
}

/** What the rules need to know of the program the script is checked in. */
export interface CheckContext {
  readonly ast: AstModule;
  readonly checker: Checker;
  readonly project: Project;
  /** The script as the compiler parsed it. */
  readonly file: Ast.SourceFile;
  /** The declarations' files (guest globals, the catalog's tools) as the compiler names them. */
  readonly globalsFile: string;
  readonly toolsFile: string;
  /** Type alias name → tool name (`Output_get_sum` → `get-sum`). */
  readonly aliases: ReadonlyMap<string, string>;
  readonly names: ReadonlySet<string>;
  readonly denied: ReadonlySet<string>;
  readonly unlisted: readonly string[];
  /** Where the wrapper's first line ends: a skill's `input` type there is declared too. */
  readonly wrapperEnd: number;
}

/** The compiler's errors in the script that count, with the tool each concerns. */
export async function countedDiagnostics(context: CheckContext, errors: readonly Diagnostic[]): Promise<CountedDiagnostic[]> {
  const counted: CountedDiagnostic[] = [];
  for (const diagnostic of errors) {
    const node = nodeAt(context.file, diagnostic.pos, diagnostic.end - diagnostic.pos);
    const tool = await concernedTool(context, diagnostic.code, node);
    if (tool === null) continue;
    counted.push({
      start: diagnostic.pos,
      code: diagnostic.code,
      message: HOST_NAME_CODES.has(diagnostic.code) ? hostNameMessage(context.ast, node, diagnostic) : messageOf(diagnostic),
      ...(tool !== undefined ? { tool } : {}),
    });
  }
  return counted;
}

/** The message as TypeScript prints it: the chain below it indented, and an `await` hint after it. */
function messageOf(diagnostic: Diagnostic): string {
  const lines: string[] = [];
  const add = (entry: Diagnostic, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${entry.text}`);
    for (const next of entry.messageChain ?? []) add(next, depth + 1);
  };
  add(diagnostic, 0);
  const hints = (diagnostic.relatedInformation ?? [])
    .filter((related) => HINT_CODES.has(related.code))
    .map((related) => related.text);
  return [lines.join('\n'), ...hints].join(' ');
}

/**
 * A Node, browser or test-runner name, said without the compiler's advice to install its types. In
 * JavaScript, `require("fs")` is reported at the module's name: it is `require` that is missing.
 */
function hostNameMessage(ast: AstModule, node: Ast.Node, diagnostic: Diagnostic): string {
  const required = ast.isStringLiteral(node) && ast.isCallExpression(node.parent);
  const name = required ? 'require' : ast.isIdentifier(node) ? node.text : (/'([^']+)'/.exec(diagnostic.text)?.[1] ?? 'it');
  return `Cannot find name '${name}': a script has the language and the globals declared for it, no Node, browser or test-runner ones.`;
}

/** Each `tools.x`, `tools["x"]` and `const { x } = tools` naming no tool (the global `tools` only). */
export async function unknownToolNames(context: CheckContext): Promise<CountedDiagnostic[]> {
  const { ast, file } = context;
  const found: Array<{ readonly name: string; readonly at: Ast.Node; readonly tools: Ast.Node }> = [];
  const consider = (name: string, at: Ast.Node, tools: Ast.Node): void => {
    if (!isTool(context, name)) found.push({ name, at, tools });
  };
  const visit = (node: Ast.Node): void => {
    if (ast.isPropertyAccessExpression(node) && isNamedTools(ast, node.expression)) {
      consider(node.name.text, node.name, node.expression);
    } else if (
      ast.isElementAccessExpression(node) &&
      isNamedTools(ast, node.expression) &&
      isStringLiteralLike(ast, node.argumentExpression)
    ) {
      consider(node.argumentExpression.text, node.argumentExpression, node.expression);
    } else if (
      ast.isVariableDeclaration(node) &&
      ast.isObjectBindingPattern(node.name) &&
      node.initializer !== undefined &&
      isNamedTools(ast, node.initializer)
    ) {
      for (const element of node.name.elements) {
        const key = element.propertyName ?? element.name;
        if (key !== undefined && (ast.isIdentifier(key) || isStringLiteralLike(ast, key)))
          consider(key.text, key, node.initializer);
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  if (found.length === 0) return [];
  // One question for them all: which of these `tools` is the global one, not a local of that name.
  const symbols = await context.checker.getSymbolAtLocation(found.map((entry) => entry.tools));
  return found
    .filter((_entry, index) => declaredIn(symbols[index], context.globalsFile))
    .map(({ name, at }) => ({
      start: at.getStart(file),
      code: 0,
      message: `tools[${JSON.stringify(name)}] is not a tool.`,
      unknownTool: name,
    }));
}

function isTool(context: CheckContext, name: string): boolean {
  if (context.names.has(name) || context.denied.has(name) || QUIET_TOOL_NAMES.has(name)) return true;
  // An upstream still starting (or down) has listed nothing: its names are callable, and refused when called.
  return context.unlisted.some((prefix) => name.startsWith(prefix));
}

function isNamedTools(ast: AstModule, expression: Ast.Node): expression is Ast.Identifier {
  return ast.isIdentifier(expression) && expression.text === 'tools';
}

function isStringLiteralLike(ast: AstModule, node: Ast.Node): node is Ast.StringLiteral | Ast.NoSubstitutionTemplateLiteral {
  return ast.isStringLiteral(node) || ast.isNoSubstitutionTemplateLiteral(node);
}

async function isGlobalTools(context: CheckContext, expression: Ast.Node): Promise<boolean> {
  if (!isNamedTools(context.ast, expression)) return false;
  return declaredIn(await context.checker.getSymbolAtLocation(expression), context.globalsFile);
}

function declaredIn(symbol: TsSymbol | undefined, file: string): boolean {
  return symbol?.declarations.some((declaration) => declaration.path === file) ?? false;
}

/**
 * Whether a diagnostic counts: null when it doesn't, else the tool it concerns (undefined when
 * none does, as for a misspelled global).
 */
async function concernedTool(context: CheckContext, code: number, node: Ast.Node): Promise<string | undefined | null> {
  const { ast, checker } = context;
  if (NAME_CODES.has(code) || HOST_NAME_CODES.has(code)) {
    // `typeof x` of a name that isn't there is "undefined" at run time, not an error: portable code asks so.
    return isInType(ast, node) || ast.isTypeOfExpression(node.parent) ? null : undefined;
  }
  if (PROPERTY_CODES.has(code)) {
    const object = objectOfMember(ast, node);
    if (object === undefined) return null;
    const type = await checker.getTypeAtLocation(object);
    return type !== undefined && (await fromDeclarations(context, type)) ? toolOfType(context, type) : null;
  }
  if (CALL_CODES.has(code)) {
    // The error is at the callee.
    const callee = await checker.getTypeAtLocation(node);
    if (callee !== undefined && (await fromDeclarations(context, callee))) return undefined;
    const object = ast.isPropertyAccessExpression(node) || ast.isElementAccessExpression(node) ? node.expression : undefined;
    if (object === undefined) return null;
    const type = await checker.getTypeAtLocation(object);
    return type !== undefined && (await fromDeclarations(context, type)) ? toolOfType(context, type) : null;
  }
  if (ARGUMENT_CODES.has(code)) {
    const call = callAround(ast, node);
    if (call === undefined) return null;
    const callee = await checker.getTypeAtLocation(call.expression);
    if (callee === undefined || !(await fromDeclarations(context, callee))) return null;
    return toolOfCallee(context, call.expression);
  }
  return null;
}

/** The object whose member `node` names: `x` of `x.name`, or the pattern of `const { name } = x`. */
function objectOfMember(ast: AstModule, node: Ast.Node): Ast.Node | undefined {
  const parent = node.parent;
  if (ast.isPropertyAccessExpression(parent) && parent.name === node) return parent.expression;
  if (ast.isElementAccessExpression(parent) && parent.argumentExpression === node) return parent.expression;
  if (ast.isBindingElement(parent) && ast.isObjectBindingPattern(parent.parent)) return parent.parent;
  return undefined;
}

/** The call whose arguments hold `node` (or whose callee or parentheses it is, for a count of arguments). */
function callAround(ast: AstModule, node: Ast.Node): Ast.CallExpression | undefined {
  for (let at: Ast.Node | undefined = node; at !== undefined; at = at.parent) {
    if (ast.isCallExpression(at)) return at;
    // Past a function or a statement, the error is no longer about an argument.
    if (ast.isFunctionLikeDeclaration(at) || ast.isStatement(at)) return undefined;
  }
  return undefined;
}

/** The tool a callee calls: `tools.x`, `tools["x"]`. */
async function toolOfCallee(context: CheckContext, callee: Ast.Node): Promise<string | undefined> {
  const { ast } = context;
  if (ast.isPropertyAccessExpression(callee) && (await isGlobalTools(context, callee.expression))) return callee.name.text;
  if (ast.isElementAccessExpression(callee) && (await isGlobalTools(context, callee.expression))) {
    const key = callee.argumentExpression;
    return isStringLiteralLike(ast, key) ? key.text : undefined;
  }
  return undefined;
}

/** Whether a type (a union's member, a promise's or array's element) is one the declarations made. */
async function fromDeclarations(context: CheckContext, type: Type, depth = 0): Promise<boolean> {
  if (type.isUnionType() || type.isIntersectionType()) {
    for (const member of await type.getTypes()) if (await fromDeclarations(context, member, depth)) return true;
    return false;
  }
  for (const symbol of [await type.getAliasSymbol(), await type.getSymbol()]) {
    if (await declaredByUs(context, symbol)) return true;
  }
  if (depth > 0 || !type.isTypeReference()) return false;
  for (const argument of await context.checker.getTypeArguments(type)) {
    if (await fromDeclarations(context, argument, depth + 1)) return true;
  }
  return false;
}

async function declaredByUs(context: CheckContext, symbol: TsSymbol | undefined): Promise<boolean> {
  for (const declaration of symbol?.declarations ?? []) {
    if (declaration.path === context.globalsFile || declaration.path === context.toolsFile) return true;
    if (declaration.path === context.file.path) {
      const node = await declaration.resolve(context.project);
      if (node !== undefined && node.end <= context.wrapperEnd) return true;
    }
  }
  return false;
}

/** The tool whose types a type is (its alias `Output_x`, a member of `CodemodeTools`), if one is. */
async function toolOfType(context: CheckContext, type: Type, depth = 0): Promise<string | undefined> {
  const { ast } = context;
  if (type.isUnionType() || type.isIntersectionType()) {
    for (const member of await type.getTypes()) {
      const tool = await toolOfType(context, member, depth);
      if (tool !== undefined) return tool;
    }
    return undefined;
  }
  for (const symbol of [await type.getAliasSymbol(), await type.getSymbol()]) {
    for (const declaration of symbol?.declarations ?? []) {
      if (declaration.path !== context.toolsFile) continue;
      for (let at = await declaration.resolve(context.project); at !== undefined; at = at.parent) {
        if (ast.isTypeAliasDeclaration(at)) return context.aliases.get(at.name.text);
        if (ast.isMethodSignatureDeclaration(at) && ast.isStringLiteral(at.name) && context.names.has(at.name.text))
          return at.name.text;
      }
    }
  }
  if (depth > 0 || !type.isTypeReference()) return undefined;
  for (const argument of await context.checker.getTypeArguments(type)) {
    const tool = await toolOfType(context, argument, depth + 1);
    if (tool !== undefined) return tool;
  }
  return undefined;
}

/** Whether a name is in a type (`let x: Foo`): stripped before the script runs, so no missing global. */
function isInType(ast: AstModule, node: Ast.Node): boolean {
  for (let at: Ast.Node | undefined = node; at !== undefined; at = at.parent) {
    if (ast.isTypeNode(at) && !ast.isExpressionWithTypeArguments(at)) return true;
    if (ast.isStatement(at)) return false;
  }
  return false;
}

/** The innermost node holding [start, start + length). */
function nodeAt(file: Ast.SourceFile, start: number, length: number): Ast.Node {
  let node: Ast.Node = file;
  for (;;) {
    let inner: Ast.Node | undefined;
    node.forEachChild((child) => {
      if (child.getStart(file) <= start && start + length <= child.getEnd()) {
        inner = child;
        return true;
      }
      return undefined;
    });
    if (inner === undefined) return node;
    node = inner;
  }
}
