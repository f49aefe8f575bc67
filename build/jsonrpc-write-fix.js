// An esbuild plugin for TypeScript 7's API bundle (dist/server/typescript-native.cjs): its vendored
// vscode-jsonrpc 9 sends a request from inside `new Promise(async (resolve, reject) => ...)`, and
// when the write fails (the compiler's socket gone: it was killed on an overrun, or the checker
// closed during a check) it rejects the request's promise, as it should, and then rethrows, which
// rejects the executor's own promise that nobody holds: an unhandled rejection, which ends a Node
// process. The rethrow is taken out; the caller still gets the failure through its promise.
// A vendored file that no longer has the rethrow fails the build, so an upgrade is looked at again.
// Tested in test/typecheck/compiler-connection.test.ts.
import { readFile } from 'node:fs/promises';

const CONNECTION = /typescript-native[\\/]vendor[\\/]vscode-jsonrpc[\\/]lib[\\/]common[\\/]connection\.js$/;
const RETHROW = /(logger\.error\(`Sending request failed\.`\);)\s*\n\s*throw error;/;

export const jsonrpcWriteFix = {
  name: 'jsonrpc-write-fix',
  setup(build) {
    build.onLoad({ filter: CONNECTION }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!RETHROW.test(source)) {
        throw new Error(
          `${path}: the rethrow after a failed request write is not there any more; see build/jsonrpc-write-fix.js`,
        );
      }
      return { contents: source.replace(RETHROW, '$1'), loader: 'js' };
    });
  },
};
