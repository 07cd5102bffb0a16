import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Flags of other programs that these documents name in a span of their own. */
const OTHER_PROGRAMS: Readonly<Record<string, string>> = { '--test': 'node' };

/** Every `--flag` the CLI declares, read from its commander definitions. */
function declaredFlags(): Set<string> {
  const dir = path.join(ROOT, 'src/cli');
  return new Set(
    readdirSync(dir).flatMap((file) =>
      [...readFileSync(path.join(dir, file), 'utf8').matchAll(/[oO]ption\(\s*'(--[a-z][a-z-]*)/g)].map((match) => match[1] as string),
    ),
  );
}

/** The flags a document gives redline: in code spans and lines of a redline command, and code spans that are a flag alone. */
function documentedFlags(text: string): Set<string> {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string);
  const commandLines = text.split('\n').filter((line) => /^\s*(npx )?redline /.test(line));
  const redlineText = [...spans.filter((span) => /\bredline /.test(span) || /^--[a-z-]+$/.test(span)), ...commandLines];
  return new Set(redlineText.flatMap((item) => [...item.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((match) => match[0])));
}

describe('documented CLI options', () => {
  for (const doc of ['README.md', 'examples/README.md']) {
    it(`${doc} names only options the CLI has`, () => {
      const declared = declaredFlags();
      const unknown = [...documentedFlags(readFileSync(path.join(ROOT, doc), 'utf8'))].filter(
        (flag) => !declared.has(flag) && OTHER_PROGRAMS[flag] === undefined,
      );
      assert.deepEqual(unknown, []);
    });
  }
});

describe('README', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('says how to run redline outside a checkout', () => {
    assert.match(readme, /npm i redline-loop\b.*npx redline run/);
    assert.match(readme, /npm i -g redline-loop\b/);
  });

  it('names every option of the test-runner check where checks are described', () => {
    const checksRow = readme.split('\n').find((line) => line.startsWith('| `checks` |'));
    assert.ok(checksRow !== undefined, 'the Missions table has a checks row');
    assert.match(checksRow, /`reportFile`/);
  });
});
