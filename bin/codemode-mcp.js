#!/usr/bin/env node
// The executable: reads the command line, then prints and exits, or runs what it asked for.
// It loads the server's bundle in dist/server/, which the build makes (npm install runs it: "prepare"),
// with V8's code cache of it (src/boot/compile-cache.ts).

let loaded;
try {
  const { loadServer } = await import('../dist/server/boot.js');
  loaded = loadServer();
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  const root = new URL('..', import.meta.url).pathname;
  process.stderr.write(
    `codemode-mcp: the build is missing (${error.message}); run "npm install" in ${root} (it installs what the build needs, then builds)\n`,
  );
  process.exit(1);
}

const { entry, compileCache } = loaded;
const result = entry.parseCli(process.argv.slice(2));
if (entry.isCliExit(result)) {
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr);
  // Not process.exit(): a piped stdout gets the whole help text before the process ends.
  process.exitCode = result.exit;
} else {
  await entry.run(result, compileCache);
}
