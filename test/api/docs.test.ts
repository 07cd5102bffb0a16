import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** Every file and folder under `dir` (relative to the root, folders ending in `/`). */
function tree(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    return entry.isDirectory() ? [`${relative}/`, ...tree(relative)] : [relative];
  });
}

const SOURCES = tree('src').filter((file) => file.endsWith('.ts'));
const sourceText = new Map(SOURCES.map((file) => [file, read(file)]));

describe('the product specification is not cited', () => {
  // SPEC.md lives outside the repository: code and docs say what they mean in their own words or point to docs/.
  const files = ['README.md', ...tree('docs').filter((file) => file.endsWith('.md')), ...SOURCES];

  it('in src/, docs/ or README.md', () => {
    const citing = files.filter((file) => read(file).includes('SPEC §'));
    assert.deepEqual(citing, [], `"SPEC §" in ${citing.join(', ')}`);
  });
});

/** Files redline writes at run time that docs/architecture.md names; they are not in the repository. */
const RUNTIME_FILES = new Set(['owner.json']);
/** Names of other code that docs/architecture.md cites: the AI SDK's option, a Node global. */
const OTHER_CODE = new Set(['stopWhen', 'setTimeout']);

/** A span that names a file or folder: it ends in a source or document extension, or in `/`. */
const PATH = /^(\.?[\w*-]+\/)*\.?[\w*-]+(\.(ts|mjs|md|json)|\/)$/;
/**
 * A span that names code: `Name`, `Owner.member` or `name(args)`, with an upper-case letter somewhere
 * (all-lower-case spans such as `loop` or `error` are as often words, statuses or commands as names).
 */
const CODE_NAME = /^(?<owner>[A-Za-z_][\w$]*)(\.(?<member>[A-Za-z_$][\w$]*))?(\(.*\))?$/;

const globRegExp = (glob: string): RegExp => new RegExp(`${glob.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`);

/**
 * Whether a cited path exists: from the root when it starts at a top-level folder or file of the
 * repository, else as the end of some path under src/ (`run-recorder.ts`, `run/seal.ts`, `memory/`, `admit*.ts`).
 */
function pathExists(cited: string): boolean {
  if (RUNTIME_FILES.has(cited)) return true;
  if (/^(src|docs|test|bench|schema|scripts|examples)\//.test(cited) || cited.startsWith('.')) return existsSync(path.join(ROOT, cited));
  const pattern = globRegExp(`/${cited}`);
  return tree('src').some((file) => pattern.test(file));
}

const declaration = (name: string): RegExp =>
  new RegExp(`\\b(function\\*?|class|const|let|var|interface|type|enum)\\s+${name.replaceAll('$', '\\$')}\\b`);
const memberDeclaration = (name: string): RegExp =>
  new RegExp(`^\\s*((public|private|protected|readonly|static|async|get|set|override)\\s+)*${name}\\??\\s*[(<:=]`, 'm');

/** Whether a cited name is declared under src/; for `Owner.member`, whether the file declaring `Owner` declares `member`. */
function nameExists(owner: string, member: string | undefined): boolean {
  const declaring = SOURCES.filter((file) => declaration(owner).test(sourceText.get(file) ?? ''));
  if (member === undefined) return declaring.length > 0;
  return declaring.some((file) => memberDeclaration(member).test(sourceText.get(file) ?? ''));
}

/** What docs/architecture.md cites: spans in backticks, and in its pseudocode the files of `#` comments and the calls of camelCase names. */
function citations(doc: string): string[] {
  const fences = [...doc.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1] as string);
  const prose = doc.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string);
  const pseudocode = fences.flatMap((fence) => [
    ...[...fence.matchAll(/#[^\n]*/g)].flatMap(([comment]) => comment.match(/[\w/-]+\.ts\b/g) ?? []),
    ...[...fence.matchAll(/\b([a-z]+[A-Z]\w*)\(/g)].map((match) => match[1] as string),
  ]);
  return [...new Set([...spans, ...pseudocode])];
}

describe('docs/architecture.md', () => {
  const doc = read('docs/architecture.md');

  it('draws the layers of .dependency-cruiser.mjs, top first', async () => {
    const config = (await import(pathToFileURL(path.join(ROOT, '.dependency-cruiser.mjs')).href)) as {
      default: { forbidden: readonly { name: string }[] };
    };
    const layers = config.default.forbidden.flatMap(({ name }) => (name.startsWith('layer-') ? [name.slice('layer-'.length)] : []));
    const picture = doc.split('## The folders')[1]?.match(/^```\n([\s\S]*?)^```/m)?.[1] ?? '';
    const drawn = picture
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.trim().split(/\s+/)[0]);
    assert.deepEqual(drawn, layers.toReversed());
  });

  it('names only files and folders that exist', () => {
    const missing = citations(doc).filter((cited) => PATH.test(cited) && !pathExists(cited));
    assert.deepEqual(missing, [], `docs/architecture.md cites files that do not exist: ${missing.join(', ')}`);
  });

  it('names only code declared under src/', () => {
    const missing = citations(doc).filter((cited) => {
      const name = CODE_NAME.exec(cited)?.groups;
      if (name === undefined || !/[A-Z]/.test(cited.replace(/\(.*\)$/, '')) || OTHER_CODE.has(cited)) return false;
      return !nameExists(name.owner as string, name.member);
    });
    assert.deepEqual(missing, [], `docs/architecture.md names code that src/ does not declare: ${missing.join(', ')}`);
  });
});
