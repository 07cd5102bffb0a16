import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const chunkLists = new Map<string, Record<string, string[]>>();

/**
 * The modules behind the URLs a process loaded: a chunk of the CLI bundle (scripts/bundle-cli.mjs) stands
 * for the modules it holds, as listed in the bundle's `chunks.json`, each as the file URL it would have had
 * unbundled; any other URL is kept. Tests of what a command loads thereby see modules, not chunk names.
 */
export function modulesBehind(urls: readonly string[]): string[] {
  return urls.flatMap((url) => {
    const chunk = /^file:.*\/cli-bundle\/[^/]+\.js$/.test(url) ? fileURLToPath(url) : undefined;
    if (chunk === undefined) return [url];
    const dir = path.dirname(chunk);
    let chunks = chunkLists.get(dir);
    if (chunks === undefined) {
      chunks = JSON.parse(readFileSync(path.join(dir, 'chunks.json'), 'utf8')) as Record<string, string[]>;
      chunkLists.set(dir, chunks);
    }
    const inputs = chunks[path.basename(chunk)];
    if (inputs === undefined) throw new Error(`${chunk} is not in its bundle's chunks.json`);
    // The bundle sits in <compiled>/cli-bundle; the list's paths are relative to <compiled>'s parent.
    const root = path.dirname(path.dirname(dir));
    return inputs.map((input) => pathToFileURL(path.join(root, input)).href);
  });
}
