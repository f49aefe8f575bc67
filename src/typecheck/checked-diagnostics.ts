/**
 * Which of the compiler's errors refuse a script: only names and shapes against the declarations
 * (issue 47). A misspelled global; a field or method that a declared type lacks (a tool's
 * structured result, a tool result, a global, a promise of one: `await` forgotten); calling what
 * a declared type says is no function; a tool's or a global's arguments against its parameters;
 * a tool name that is no tool. Everything else the compiler says about the script's own code
 * (a type it inferred, `Date - Date`, a comparison it thinks can't hold) is left out: untyped
 * JavaScript is not an error. Runs in the checker's worker, over its TypeScript.
 */
import type * as TS from 'typescript';

/** `Cannot find name 'x'` (did you mean, shorthand property). */
const NAME_CODES = new Set([2304, 2552, 18004]);
/** `Property 'x' does not exist on type 'T'` (did you mean). */
const PROPERTY_CODES = new Set([2339, 2551]);
/** `This expression is not callable` (did you mean new). */
const CALL_CODES = new Set([2349, 2348]);
/** An argument that doesn't fit its parameter: assignability, missing or unknown properties, argument counts. */
const ARGUMENT_CODES = new Set([2322, 2345, 2353, 2559, 2561, 2739, 2740, 2741, 2769, 2820, 2554, 2555]);

/**
 * Names a `tools[...]` lookup answers with undefined rather than throwing (prelude/tools.ts's
 * QUIET_NAMES, which lives in the guest): no "not a tool" for them.
 */
const QUIET_TOOL_NAMES = new Set(['then', 'toJSON', 'constructor', 'valueOf', 'toString']);

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
  readonly ts: typeof TS;
  readonly checker: TS.TypeChecker;
  /** The file names of the declarations (guest globals, the catalog's tools). */
  readonly declarationFiles: ReadonlySet<string>;
  /** The global `tools`, to know it from a local of the same name. */
  readonly toolsSymbol: TS.Symbol | undefined;
  /** Type alias name → tool name (`Output_get_sum` → `get-sum`). */
  readonly aliases: ReadonlyMap<string, string>;
  readonly names: ReadonlySet<string>;
  readonly denied: ReadonlySet<string>;
  readonly unlisted: readonly string[];
  /** The script's file and where its wrapper's first line ends: a skill's `input` type there is declared too. */
  readonly wrapper?: { readonly file: string; readonly end: number };
}

/** The compiler's diagnostics of `file` that count, with the tool each concerns. */
export function countedDiagnostics(
  context: CheckContext,
  file: TS.SourceFile,
  diagnostics: readonly TS.Diagnostic[],
): CountedDiagnostic[] {
  const { ts } = context;
  const counted: CountedDiagnostic[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.category !== ts.DiagnosticCategory.Error || diagnostic.start === undefined) continue;
    const node = nodeAt(ts, file, diagnostic.start, diagnostic.length ?? 0);
    const tool = concernedTool(context, diagnostic.code, node);
    if (tool === null) continue;
    counted.push({
      start: diagnostic.start,
      code: diagnostic.code,
      message: messageOf(ts, diagnostic),
      ...(tool !== undefined ? { tool } : {}),
    });
  }
  return counted;
}

/** `Did you forget to use 'await'?`: a hint the compiler gives beside its message, which belongs in it. */
const HINT_CODES = new Set([2773]);

function messageOf(ts: typeof TS, diagnostic: TS.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const hints = (diagnostic.relatedInformation ?? [])
    .filter((related) => HINT_CODES.has(related.code))
    .map((related) => ts.flattenDiagnosticMessageText(related.messageText, ' '));
  return [message, ...hints].join(' ');
}

/** Each `tools.x`, `tools["x"]` and `const { x } = tools` naming no tool (the global `tools` only). */
export function unknownToolNames(context: CheckContext, file: TS.SourceFile): CountedDiagnostic[] {
  const { ts } = context;
  const found: CountedDiagnostic[] = [];
  const report = (name: string, at: TS.Node): void => {
    if (isTool(context, name)) return;
    found.push({
      start: at.getStart(file),
      code: 0,
      message: `tools[${JSON.stringify(name)}] is not a tool.`,
      unknownTool: name,
    });
  };
  const visit = (node: TS.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isGlobalTools(context, node.expression)) {
      report(node.name.text, node.name);
    } else if (
      ts.isElementAccessExpression(node) &&
      isGlobalTools(context, node.expression) &&
      ts.isStringLiteralLike(node.argumentExpression)
    ) {
      report(node.argumentExpression.text, node.argumentExpression);
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer !== undefined &&
      isGlobalTools(context, node.initializer)
    ) {
      for (const element of node.name.elements) {
        const key = element.propertyName ?? element.name;
        if (ts.isIdentifier(key) || ts.isStringLiteralLike(key)) report(key.text, key);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isTool(context: CheckContext, name: string): boolean {
  if (context.names.has(name) || context.denied.has(name) || QUIET_TOOL_NAMES.has(name)) return true;
  // An upstream still starting (or down) has listed nothing: its names are callable, and refused when called.
  return context.unlisted.some((prefix) => name.startsWith(prefix));
}

function isGlobalTools(context: CheckContext, expression: TS.Expression): boolean {
  if (!context.ts.isIdentifier(expression) || expression.text !== 'tools' || context.toolsSymbol === undefined) return false;
  return context.checker.getSymbolAtLocation(expression) === context.toolsSymbol;
}

/**
 * Whether a diagnostic counts: null when it doesn't, else the tool it concerns (undefined when
 * none does, as for a misspelled global).
 */
function concernedTool(context: CheckContext, code: number, node: TS.Node): string | undefined | null {
  const { ts, checker } = context;
  if (NAME_CODES.has(code)) return isInType(ts, node) ? null : undefined;
  if (PROPERTY_CODES.has(code)) {
    const object = objectOfMember(ts, node);
    if (object === undefined) return null;
    const type = checker.getTypeAtLocation(object);
    return fromDeclarations(context, type) ? toolOfType(context, type) : null;
  }
  if (CALL_CODES.has(code)) {
    // The error is at the callee.
    const callee = node;
    if (fromDeclarations(context, checker.getTypeAtLocation(callee))) return undefined;
    const object = ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee) ? callee.expression : undefined;
    if (object === undefined) return null;
    const type = checker.getTypeAtLocation(object);
    return fromDeclarations(context, type) ? toolOfType(context, type) : null;
  }
  if (ARGUMENT_CODES.has(code)) {
    const call = callAround(ts, node);
    if (call === undefined || !fromDeclarations(context, checker.getTypeAtLocation(call.expression))) return null;
    return toolOfCallee(context, call.expression);
  }
  return null;
}

/** The object whose member `node` names: `x` of `x.name`, or the pattern of `const { name } = x`. */
function objectOfMember(ts: typeof TS, node: TS.Node): TS.Node | undefined {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return parent.expression;
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return parent.expression;
  if (ts.isBindingElement(parent) && ts.isObjectBindingPattern(parent.parent)) return parent.parent;
  return undefined;
}

/** The call whose arguments hold `node` (or whose callee or parentheses it is, for a count of arguments). */
function callAround(ts: typeof TS, node: TS.Node): TS.CallExpression | undefined {
  for (let at: TS.Node | undefined = node; at !== undefined; at = at.parent) {
    if (ts.isCallExpression(at)) return at;
    // Past a function or a statement, the error is no longer about an argument.
    if (ts.isFunctionLike(at) || ts.isStatement(at)) return undefined;
  }
  return undefined;
}

/** The tool a callee calls: `tools.x`, `tools["x"]`. */
function toolOfCallee(context: CheckContext, callee: TS.Expression): string | undefined {
  const { ts } = context;
  if (ts.isPropertyAccessExpression(callee) && isGlobalTools(context, callee.expression)) return callee.name.text;
  if (ts.isElementAccessExpression(callee) && isGlobalTools(context, callee.expression)) {
    const key = callee.argumentExpression;
    return ts.isStringLiteralLike(key) ? key.text : undefined;
  }
  return undefined;
}

/** Whether a type (a union's member, a promise's or array's element) is one the declarations made. */
function fromDeclarations(context: CheckContext, type: TS.Type, depth = 0): boolean {
  const { ts, checker } = context;
  if (type.isUnionOrIntersection()) return type.types.some((member) => fromDeclarations(context, member, depth));
  if (declaredByUs(context, type.aliasSymbol) || declaredByUs(context, type.getSymbol())) return true;
  if (depth > 0 || !isReference(ts, type)) return false;
  return checker.getTypeArguments(type).some((argument) => fromDeclarations(context, argument, depth + 1));
}

function declaredByUs(context: CheckContext, symbol: TS.Symbol | undefined): boolean {
  const { wrapper } = context;
  return (
    symbol?.declarations?.some((declaration) => {
      const file = declaration.getSourceFile().fileName;
      return context.declarationFiles.has(file) || (file === wrapper?.file && declaration.end <= wrapper.end);
    }) ?? false
  );
}

/** The tool whose types a type is (its alias `Output_x`, a member of `CodemodeTools`), if one is. */
function toolOfType(context: CheckContext, type: TS.Type, depth = 0): string | undefined {
  const { ts, checker } = context;
  if (type.isUnionOrIntersection()) {
    for (const member of type.types) {
      const tool = toolOfType(context, member, depth);
      if (tool !== undefined) return tool;
    }
    return undefined;
  }
  for (const symbol of [type.aliasSymbol, type.getSymbol()]) {
    for (const declaration of symbol?.declarations ?? []) {
      for (let at: TS.Node | undefined = declaration; at !== undefined; at = at.parent) {
        if (ts.isTypeAliasDeclaration(at)) return context.aliases.get(at.name.text);
        if (ts.isMethodSignature(at) && ts.isStringLiteral(at.name) && context.names.has(at.name.text)) return at.name.text;
      }
    }
  }
  if (depth > 0 || !isReference(ts, type)) return undefined;
  for (const argument of checker.getTypeArguments(type)) {
    const tool = toolOfType(context, argument, depth + 1);
    if (tool !== undefined) return tool;
  }
  return undefined;
}

/** A generic type given its arguments (`Promise<T>`, `T[]`). */
function isReference(ts: typeof TS, type: TS.Type): type is TS.TypeReference {
  return (type.flags & ts.TypeFlags.Object) !== 0 && ((type as TS.ObjectType).objectFlags & ts.ObjectFlags.Reference) !== 0;
}

/** Whether a name is in a type (`let x: Foo`): stripped before the script runs, so no missing global. */
function isInType(ts: typeof TS, node: TS.Node): boolean {
  for (let at: TS.Node | undefined = node; at !== undefined; at = at.parent) {
    if (ts.isTypeNode(at) && !ts.isExpressionWithTypeArguments(at)) return true;
    if (ts.isStatement(at)) return false;
  }
  return false;
}

/** The innermost node holding [start, start + length). */
function nodeAt(ts: typeof TS, file: TS.SourceFile, start: number, length: number): TS.Node {
  let node: TS.Node = file;
  for (;;) {
    let inner: TS.Node | undefined;
    ts.forEachChild(node, (child) => {
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
