import { z } from 'zod';
import { missionSchema } from './schema.js';

/** The JSON Schema of mission files as written (inputs, before defaults), for editor completion. */
export function missionJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(missionSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'redline mission',
  };
}
