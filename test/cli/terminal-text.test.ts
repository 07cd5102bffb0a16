import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { clean, jsonLine, terminalText, unsafe } from '../../src/cli/terminal-text.js';

const OWN_STYLES = ['\x1b[0m', '\x1b[1m', '\x1b[31m', '\x1b[32m'];
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\x1b', '[', '0', '1', '3', 'm', ']', '\x07', '\n', '\r', '\t', '\x9b', '\u202e', '\u2028', '\x7f'),
    fc.string({ unit: 'binary', maxLength: 1 }),
  ),
  maxLength: 40,
});

/** The unsafe characters of `output` once redline's own styles are taken out: none may be left but newlines. */
const leftOver = (output: string): string[] =>
  [...OWN_STYLES.reduce((rest, style) => rest.split(style).join(''), output)].filter(
    (char) => char !== '\n' && unsafe(char.codePointAt(0) as number),
  );

describe('terminalText, the sink every CLI line passes', () => {
  it('leaves no unsafe character but newlines and the painter’s own styles', () => {
    fc.assert(
      fc.property(text, (input) => assert.deepEqual(leftOver(terminalText(input)), [])),
      { seed: 7, numRuns: 500 },
    );
  });

  it('keeps safe text, newlines and the painter’s styles as they are', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('\n', ...OWN_STYLES),
            fc.string({ unit: 'binary' }).map((part) => [...part].filter((char) => !unsafe(char.codePointAt(0) as number)).join('')),
          ),
        ),
        (parts) => assert.equal(terminalText(parts.join('')), parts.join('')),
      ),
      { seed: 7 },
    );
  });

  it('spells out other escape sequences, carriage returns and bidi overrides', () => {
    assert.equal(terminalText('\x1b]0;owned\x07\x1b[2J\x1b[8m\rok\u202e\x9b1m'), '\\x1b]0;owned\\x07\\x1b[2J\\x1b[8m\\rok\\u202e\\u009b1m');
  });

  it('keeps a JSON line JSON, with the same value, whatever it holds', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.jsonValue()), (value) =>
        assert.deepEqual(JSON.parse(terminalText(JSON.stringify(value))), JSON.parse(JSON.stringify(value))),
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('changes nothing that clean or jsonLine made safe', () => {
    fc.assert(
      fc.property(text, (input) => {
        assert.equal(terminalText(clean(input)), clean(input));
        assert.equal(terminalText(jsonLine(input)), jsonLine(input));
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});
