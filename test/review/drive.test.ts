import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asker, driveAsync, driveSync, type Awaitable, type Steps } from '../../src/review/drive.js';

/** A port that answers a name's length, at once or later, and remembers what it was asked. */
interface Lengths {
  readonly asked: string[];
  length(name: string): Awaitable<number>;
}

function lengths(later: boolean): Lengths {
  const asked: string[] = [];
  return {
    asked,
    length(name) {
      asked.push(name);
      return later ? Promise.resolve(name.length) : name.length;
    },
  };
}

const ask = asker<Lengths>();

/** An operation of two questions, the second depending on the first answer. */
function* twoQuestions(): Steps<Lengths, string> {
  const first = yield* ask((port) => port.length('three'));
  const second = yield* ask((port) => port.length('x'.repeat(first * 2)));
  return `${first}+${second}`;
}

describe('review drivers', () => {
  it('run one operation alike over a port that answers at once and one that answers later, question by question', async () => {
    const now = lengths(false);
    const later = lengths(true);
    assert.equal(driveSync(twoQuestions(), now), '5+10');
    assert.equal(await driveAsync(twoQuestions(), later), '5+10');
    assert.deepEqual(now.asked, ['three', 'xxxxxxxxxx']);
    assert.deepEqual(later.asked, now.asked);
  });

  it('the synchronous driver refuses a port that answers later, and asks it nothing more', () => {
    const later = lengths(true);
    assert.throws(() => driveSync(twoQuestions(), later), {
      name: 'TypeError',
      message: 'Expected a synchronous review store, got a promise',
    });
    assert.deepEqual(later.asked, ['three']);
  });
});
