// Writes the published JSON Schema of mission files (schema/mission.schema.json) from the zod schema.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { missionJsonSchema } from '../src/mission/json-schema.js';

const target = path.resolve(import.meta.dirname, '..', 'schema', 'mission.schema.json');
await writeFile(target, `${JSON.stringify(missionJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
