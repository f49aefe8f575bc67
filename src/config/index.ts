/** The config file: formats accepted, checks, `${VAR}` expansion, tool policies and settings. See docs/config.md. */
export { ConfigError } from './config-error.js';
export { loadConfigFile } from './load-config-file.js';
export { mergeSettings } from './merge-settings.js';
export { parseConfig, type ParseConfigOptions } from './parse-config.js';
export { isSettingName, readSettingValue } from './setting-value.js';
export { globToRegExp, isToolAllowed } from './tool-policy.js';
export type { LoadedConfig, ToolPolicy, UpstreamSpec, VariableSource } from './types.js';
export { upstreamFromCommand } from './upstream-from-command.js';
