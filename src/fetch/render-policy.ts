/**
 * What `codemode-mcp tools` prints of settings.fetch after the tools: each origin scripts may
 * fetch, its methods (those a person approves said so), the headers the server adds (by name:
 * their values are never printed), its paths and whether private addresses are allowed.
 */
import { fetchApprovalOf, type FetchOriginRule } from '../config/fetch-setting.js';

export function renderFetchPolicy(rules: readonly FetchOriginRule[]): string {
  const head =
    `fetch(url, init) reaches ${rules.length} origin${rules.length === 1 ? '' : 's'} (settings.fetch), made by the server; ` +
    'any other origin is refused (FETCH_ORIGIN).';
  const sections = rules.map((rule) => {
    const asking = rule.methods.filter((method) => fetchApprovalOf(rule, method) === 'ask');
    const lines = [
      `== ${rule.origin}`,
      `// methods: ${rule.methods.join(', ')}${asking.length > 0 ? `; ${asking.join(', ')} ask${asking.length === 1 ? 's' : ''} a person first` : ''}`,
      rule.headers.names.length > 0
        ? `// the server adds: ${rule.headers.names.join(', ')} (values from the config, never shown to scripts)`
        : '// the server adds no header',
      `// paths: ${rule.paths?.join(', ') ?? 'all'}`,
      `// private addresses (loopback, private, link-local, metadata): ${rule.allowPrivate ? 'allowed' : 'refused (FETCH_PRIVATE)'}`,
    ];
    return lines.join('\n');
  });
  return `${[head, ...sections].join('\n\n')}\n`;
}
