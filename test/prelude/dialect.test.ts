/**
 * The prelude is written in a narrower JavaScript than the scripts it serves (see
 * prelude/intrinsics.ts): a script may replace any global, prototype method, getter or iterator,
 * and the prelude must never call one. This test reads the prelude with the TypeScript checker
 * and names every construct that would look one up at run time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PRELUDE_CONFIG = `${ROOT}prelude/tsconfig.json`;

/** The one file that may name globals and built-in methods: it takes them before any script runs. */
const CAPTURES = 'prelude/intrinsics.ts';

/** Globals that are frozen by the language itself. */
const FROZEN_GLOBALS = new Set(['undefined', 'NaN', 'Infinity']);

/** Properties that are always the object's own data: reading or writing them reaches no prototype. */
const OWN_PROPERTIES = new Set(['length', 'prototype']);

/** Interfaces of plain records (the prelude makes them itself, or the engine does, with own fields). */
const RECORD_INTERFACES = new Set(['PropertyDescriptor', 'IteratorYieldResult', 'IteratorReturnResult', 'ProxyHandler']);

/** Bases a prelude class may extend: its own null-prototype base, or the captured Error for the script's error classes. */
const CLASS_BASES = new Set(['NullProto', 'ErrorConstructor']);

/**
 * A class handed to scripts (fetch's Headers and Response) extends nothing, since a script reaches
 * its base through Object.getPrototypeOf: its file sets `ObjectSetPrototypeOf(<Class>.prototype, null)`.
 */
function inheritsNull(source: ts.SourceFile, name: string): boolean {
  return source.statements.some(
    (statement) =>
      ts.isExpressionStatement(statement) &&
      ts.isCallExpression(statement.expression) &&
      statement.expression.expression.getText() === 'ObjectSetPrototypeOf' &&
      statement.expression.arguments[0]?.getText() === `${name}.prototype` &&
      statement.expression.arguments[1]?.kind === ts.SyntaxKind.NullKeyword,
  );
}

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

function isLibDeclaration(declaration: ts.Declaration): boolean {
  return /[\\/]typescript[\\/]lib[\\/]lib\..*\.d\.ts$/.test(declaration.getSourceFile().fileName);
}

function isInTypePosition(node: ts.Node): boolean {
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    if (ts.isTypeNode(current) || ts.isTypeAliasDeclaration(current) || ts.isInterfaceDeclaration(current)) return true;
    if (ts.isExpression(current) || ts.isStatement(current)) return false;
  }
  return false;
}

/** Values that convert to a primitive without running script code. */
function isPrimitive(type: ts.Type): boolean {
  const flags =
    ts.TypeFlags.StringLike |
    ts.TypeFlags.NumberLike |
    ts.TypeFlags.BooleanLike |
    ts.TypeFlags.BigIntLike |
    ts.TypeFlags.Undefined |
    ts.TypeFlags.Null;
  if (type.isUnion()) return type.types.every(isPrimitive);
  return (type.flags & flags) !== 0;
}

/** The source files of the modules the built bundle holds (dist/prelude.js, made by npm run build). */
function bundledSources(): Set<string> {
  const bundle = readFileSync(`${ROOT}dist/prelude.js`, 'utf8');
  return new Set(
    [...bundle.matchAll(/^"([\w/-]+)": function \(exports, require, module\) \{$/gm)].map((match) => `${match[1]}.ts`),
  );
}

function lint(files: Set<string>): Finding[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    PRELUDE_CONFIG,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();
  const findings: Finding[] = [];

  for (const source of program.getSourceFiles()) {
    const file = source.fileName.startsWith(ROOT) ? source.fileName.slice(ROOT.length) : source.fileName;
    if (!files.has(file) || file === CAPTURES) continue;
    const report = (node: ts.Node, rule: string): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      findings.push({ file, line: line + 1, rule, text: node.getText().slice(0, 80) });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && !isInTypePosition(node) && !FROZEN_GLOBALS.has(node.text)) {
        const parent = node.parent;
        const isMemberName =
          (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
          ts.isPropertyAssignment(parent) ||
          ts.isShorthandPropertyAssignment(parent);
        const symbol = checker.getSymbolAtLocation(node);
        if (!isMemberName && symbol?.declarations?.some(isLibDeclaration))
          report(node, 'names a global; take it in prelude/intrinsics.ts');
      }
      if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
        const symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node.argumentExpression);
        const name = symbol?.getName() ?? '';
        const owner = symbol?.declarations?.[0]?.parent;
        const inRecord = owner !== undefined && ts.isInterfaceDeclaration(owner) && RECORD_INTERFACES.has(owner.name.text);
        if (symbol?.declarations?.some(isLibDeclaration) && !OWN_PROPERTIES.has(name) && !inRecord) {
          report(node, 'looks up a built-in method or getter; use the captured one from prelude/intrinsics.ts');
        }
        if (ts.isElementAccessExpression(node) && !isPrimitive(checker.getTypeAtLocation(node.argumentExpression))) {
          const keyType = checker.getTypeAtLocation(node.argumentExpression);
          if ((keyType.flags & ts.TypeFlags.ESSymbolLike) === 0) report(node, 'uses a key that may run toString');
        }
      }
      if (ts.isForOfStatement(node)) report(node, 'for...of runs the iterator a script can replace; loop by index');
      if (ts.isSpreadElement(node)) report(node, 'spread runs the iterator a script can replace');
      if (ts.isArrayBindingPattern(node)) report(node, 'array destructuring runs the iterator a script can replace');
      if (ts.isAwaitExpression(node) || ts.isYieldExpression(node)) report(node, 'await and yield look up then and next');
      if (ts.isFunctionLike(node) && (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Async) !== 0) {
        report(node, 'an async function resolves through then');
      }
      if (ts.isTaggedTemplateExpression(node)) report(node, 'a tagged template calls a function with a frozen array of its own');
      if (ts.isBinaryExpression(node)) {
        const operator = node.operatorToken.kind;
        if (operator === ts.SyntaxKind.InstanceOfKeyword)
          report(node, 'instanceof runs Symbol.hasInstance, which a script can define');
        if (operator === ts.SyntaxKind.EqualsEqualsToken || operator === ts.SyntaxKind.ExclamationEqualsToken) {
          report(node, '== converts objects to primitives; use ===');
        }
        const converting = [
          ts.SyntaxKind.PlusToken,
          ts.SyntaxKind.PlusEqualsToken,
          ts.SyntaxKind.LessThanToken,
          ts.SyntaxKind.LessThanEqualsToken,
          ts.SyntaxKind.GreaterThanToken,
          ts.SyntaxKind.GreaterThanEqualsToken,
        ];
        if (converting.includes(operator)) {
          for (const side of [node.left, node.right]) {
            if (!isPrimitive(checker.getTypeAtLocation(side)))
              report(side, 'converts a value that may be an object (its toString or valueOf runs)');
          }
        }
      }
      if (ts.isTemplateSpan(node) && !isPrimitive(checker.getTypeAtLocation(node.expression))) {
        report(node.expression, 'a template converts a value that may be an object (its toString runs)');
      }
      if (
        ts.isPrefixUnaryExpression(node) &&
        (node.operator === ts.SyntaxKind.PlusToken || node.operator === ts.SyntaxKind.MinusToken) &&
        !isPrimitive(checker.getTypeAtLocation(node.operand))
      ) {
        report(node, 'converts a value that may be an object (its valueOf runs)');
      }
      if (ts.isClassLike(node)) {
        const base = node.heritageClauses
          ?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)
          ?.types[0]?.expression.getText();
        const handedOut = base === undefined && node.name !== undefined && inheritsNull(source, node.name.text);
        if (!handedOut && (base === undefined || !CLASS_BASES.has(base)))
          report(
            node.name ?? node,
            'a prelude class extends NullProto, so its instances inherit nothing a script can reach ' +
              '(one handed to scripts extends nothing, and its prototype is set to inherit null)',
          );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

describe('the prelude dialect', () => {
  test('no prelude file looks up a global, a built-in method, an iterator or a conversion a script can replace', () => {
    const findings = lint(bundledSources()).map((finding) => `${finding.file}:${finding.line} ${finding.rule}: ${finding.text}`);
    expect(findings).toEqual([]);
  });

  test('reads every module the bundle holds, and every file of prelude/ is one', () => {
    const bundled = bundledSources();
    const prelude = readdirSync(`${ROOT}prelude`)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `prelude/${name}`);
    expect(prelude.filter((file) => !bundled.has(file))).toEqual([]);
    expect(bundled.has('common/seam.ts')).toBe(true);
  });
});
