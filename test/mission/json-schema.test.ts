import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { missionJsonSchema } from '../../src/mission/json-schema.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('published JSON Schema', () => {
  it('is the one the code generates (run `npm run schema` after changing the mission schema)', async () => {
    const published = JSON.parse(await readFile(path.join(ROOT, 'schema/mission.schema.json'), 'utf8'));
    assert.deepEqual(published, missionJsonSchema());
  });

  it('accepts every bundled example mission and refuses a broken one', async () => {
    const validate = new Ajv2020({ strict: false }).compile(missionJsonSchema());
    const examples = (await readdir(path.join(ROOT, 'examples'), { recursive: true })).filter((file) => file.endsWith('mission.yaml'));
    assert.ok(examples.length >= 9, `found ${examples.length} example missions`);
    for (const file of examples) {
      const ok = validate(parse(await readFile(path.join(ROOT, 'examples', file), 'utf8')));
      assert.ok(ok, `${file}: ${JSON.stringify(validate.errors)}`);
    }
    assert.equal(validate({ id: 'x', goal: 'g', budgets: { maxAttempts: 'many' } }), false);
  });
});
