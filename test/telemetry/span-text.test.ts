import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeText, MAX_ATTRIBUTE_LENGTH } from '../../src/telemetry/span-text.js';
import { NO_TRACE } from '../../src/telemetry/trace-span.js';
import { startTrace } from '../../src/telemetry/start-trace.js';

describe('attributeText', () => {
  it('keeps ordinary text as it is', () => {
    assert.equal(attributeText('tests: 3 failed — médian'), 'tests: 3 failed — médian');
    assert.equal(attributeText('x'.repeat(MAX_ATTRIBUTE_LENGTH)), 'x'.repeat(MAX_ATTRIBUTE_LENGTH));
  });

  it('spells out control, separator and bidi characters', () => {
    assert.equal(attributeText('a\u001b[31mb\nc\u0085d\u2028e\u202ef\u007f'), 'a\\x1b[31mb\\x0ac\\x85d\\u{2028}e\\u{202e}f\\x7f');
  });

  it('cuts long text to the cap, marked, without splitting a surrogate pair', () => {
    const long = attributeText('y'.repeat(100_000));
    assert.equal(long.length, MAX_ATTRIBUTE_LENGTH);
    assert.ok(long.endsWith('y…'));
    const emoji = attributeText(`${'z'.repeat(MAX_ATTRIBUTE_LENGTH - 2)}😀😀`);
    assert.ok(emoji.length <= MAX_ATTRIBUTE_LENGTH);
    assert.ok(emoji.endsWith('z…'), 'the pair that did not fit is left out whole');
    assert.ok(attributeText('\u001b'.repeat(100_000)).length <= MAX_ATTRIBUTE_LENGTH, 'spelled-out text is capped after spelling');
  });
});

describe('startTrace', () => {
  it('opens no span and does nothing without a tracer or a registered provider', async () => {
    const span = await startTrace({ name: 'invoke_agent redline', attributes: {} });
    assert.equal(span, NO_TRACE);
    assert.equal(await span.child({ name: 'child' }, async (child) => (child === NO_TRACE ? 'ran' : 'other')), 'ran');
    await assert.rejects(
      NO_TRACE.child({ name: 'child' }, async () => {
        throw new Error('work failed');
      }),
      /work failed/,
    );
  });
});
