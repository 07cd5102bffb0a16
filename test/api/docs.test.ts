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

const manifest = JSON.parse(read('package.json')) as { name: string; bin: Record<string, string>; exports: Record<string, unknown> };
/** What a user imports: the package name and its exported subpaths (`redline-loop`, `redline-loop/sqlite` …). */
const SPECIFIERS = new Set(
  Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`)),
);
/** The documents a user reads: README, docs/, examples/ (with the example scripts) and bench/README.md. */
const DOCUMENTS = [
  'README.md',
  'bench/README.md',
  ...tree('docs').filter((file) => file.endsWith('.md')),
  ...tree('examples').filter((file) => /\.(md|mjs)$/.test(file) && !file.includes('/workspace/')),
];

describe('the package name', () => {
  const readme = read('README.md');

  it('is one the project can publish under, and the command stays redline', () => {
    // `redline` on the npm registry is an unrelated package ("Customizable html gauge").
    assert.notEqual(manifest.name, 'redline');
    assert.deepEqual(Object.keys(manifest.bin), ['redline']);
    assert.match(readme, new RegExp(`The npm package is \\*\\*\`${manifest.name}\`\\*\\*`));
  });

  it("is the one README's install lines install", () => {
    const lines = readme.split('\n').filter((line) => /^\s*(npm i|npx)\b/.test(line));
    assert.ok(
      lines.some((line) => line.startsWith(`npm i ${manifest.name} `)),
      `npm i ${manifest.name}`,
    );
    assert.ok(
      lines.some((line) => line.startsWith(`npm i -g ${manifest.name} `)),
      `npm i -g ${manifest.name}`,
    );
    assert.ok(
      lines.some((line) => line.startsWith(`npx -p ${manifest.name} redline `)),
      `npx -p ${manifest.name} redline`,
    );
  });

  for (const doc of DOCUMENTS) {
    it(`is what ${doc} installs and imports`, () => {
      const text = read(doc);
      // Packages of this project named on install lines (`npm i X`, `npm i -g X`, `npx -p X`).
      const installed = [
        ...[...text.matchAll(/\bnpm i(?:nstall)?(?: -g)? ((?:[\w@/.-]+ ?)+)/g)].flatMap((match) => (match[1] as string).split(' ')),
        ...[...text.matchAll(/\bnpx -p ([\w@/.-]+)/g)].map((match) => match[1] as string),
      ].filter((name) => name.startsWith('redline'));
      const imported = [
        ...[...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1] as string),
        ...[...text.matchAll(/`(redline[\w-]*\/[a-z-]+)`/g)].map((match) => match[1] as string),
      ].filter((specifier) => /^redline[\w-]*(\/|$)/.test(specifier));
      assert.deepEqual(
        installed.filter((name) => name !== manifest.name),
        [],
        `${doc} installs the package by another name`,
      );
      assert.deepEqual(
        imported.filter((specifier) => !SPECIFIERS.has(specifier)),
        [],
        `${doc} imports what the package does not export`,
      );
    });
  }
});
