/**
 * propsync's version, from its package.json: two folders up from the sources (`src/cli`), three
 * from the build (`dist/src/cli`, or the bundle's `dist/src/chunks`).
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'propsync' && manifest.version) return manifest.version;
    } catch {
      // Not there: the other layout.
    }
  }
  return 'unknown';
}
