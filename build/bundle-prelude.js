// Joins the prelude's CommonJS modules (tsc output) into one script whose value is
// `function (host, limits)`: QuickJS evaluates it without a module loader.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export function bundlePrelude(dirUrl, outUrl) {
  const files = readdirSync(dirUrl).filter((name) => name.endsWith('.js')).sort();
  const modules = files.map((name) => {
    const source = readFileSync(new URL(name, dirUrl), 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '');
    return `${JSON.stringify('./' + name.slice(0, -3))}: function (exports, require, module) {\n${source}\n}`;
  });
  const bundle = `(function (host, limits) {
"use strict";
const modules = {
${modules.join(',\n')}
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
return require('./index').install(host, limits);
})`;
  writeFileSync(outUrl, bundle);
}
