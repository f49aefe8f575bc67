/** The project's own TypeScript sources, for the tests that hold every file to a rule (error codes, log lines). */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface SourceFile {
  /** Relative to the repository: `src/support/log.ts`. */
  readonly path: string;
  readonly text: string;
}

/** Every `.ts` file under the given folders of the repository (`src`, `prelude`, …), with its text. */
export function sourceFiles(...folders: string[]): SourceFile[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  return folders.flatMap((folder) =>
    walk(join(ROOT, folder)).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') })),
  );
}
