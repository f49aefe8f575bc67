// Joins the prelude's CommonJS modules (tsc output), and the modules of common/ and protocol/ they
// require, into one script whose value is `function (host, limits)`: QuickJS evaluates it
// without a module loader. Only modules reachable from prelude/index are included.
import { readFileSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';

const REQUIRE = /require\("([^"]+)"\)/g;

/** `../common/seam.js` required from `prelude/index` is `common/seam`. */
function resolve(from, specifier) {
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '');
}

export function bundlePrelude(dirUrl, outUrl) {
  const modules = new Map();
  const pending = ['prelude/index'];
  while (pending.length > 0) {
    const id = pending.pop();
    if (modules.has(id)) continue;
    const source = readFileSync(new URL(`${id}.js`, dirUrl), 'utf8')
      .replace(/^\/\/# sourceMappingURL=.*$/m, '')
      .replace(REQUIRE, (_, specifier) => {
        const target = resolve(id, specifier);
        pending.push(target);
        return `require(${JSON.stringify(target)})`;
      });
    modules.set(id, source);
  }
  const entries = [...modules].sort(([a], [b]) => (a < b ? -1 : 1));
  const bundle = `(function (host, limits) {
"use strict";
const modules = {
${entries.map(([id, source]) => `${JSON.stringify(id)}: function (exports, require, module) {\n${source}\n}`).join(',\n')}
};
const cache = Object.create(null);
function require(name) {
  if (cache[name]) return cache[name].exports;
  const factory = modules[name];
  if (!factory) throw new Error('prelude: no module ' + name);
  const module = { exports: {} };
  cache[name] = module;
  factory(module.exports, require, module);
  return module.exports;
}
return require('prelude/index').install(host, limits);
})`;
  writeFileSync(outUrl, bundle);
}
