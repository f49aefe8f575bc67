/**
 * Opens a URL in the system browser: `open` on macOS, `cmd /c start` on Windows, `xdg-open`
 * elsewhere. Our own ten lines rather than the `open` package and its five dependencies, since the
 * link is always printed too: where no browser opens (SSH, a container), the person copies it.
 */
import { spawn } from 'node:child_process';

export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  const [command, args] =
    platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
