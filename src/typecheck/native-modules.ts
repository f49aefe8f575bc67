/**
 * TypeScript's native compiler's JavaScript API and AST module, bundled on their own as
 * dist/server/typescript-native.cjs (build/bundle-node.js) and required by compiler-process.ts at
 * the first check: the package is ES modules, which the server's CommonJS bundle (a vm.Script)
 * could import() only through Node's experimental loader, warning on stderr.
 */
export * as api from 'typescript-native/unstable/async';
export * as ast from 'typescript-native/unstable/ast';
