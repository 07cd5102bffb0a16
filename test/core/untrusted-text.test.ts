import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clean, hidesText, invisible } from '../../src/core/untrusted-text.js';
import { terminalText } from '../../src/cli/terminal-text.js';
import { attributeText } from '../../src/telemetry/span-text.js';

// The one escaping of untrusted text that the terminal, the MCP server's answers, span attributes and the
// web app share: bidi controls and zero-width characters included.

const HIDDEN = ['\u061c', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u2060', '\u2066', '\u2069', '\ufeff'];

describe('untrusted text', () => {
  it('spells out every bidi control and zero-width character, U+061C included', () => {
    for (const char of HIDDEN) {
      const code = char.codePointAt(0) as number;
      assert.ok(invisible(code), `U+${code.toString(16)}`);
      assert.equal(clean(`a${char}b`), `a\\u{${code.toString(16)}}b`);
      assert.equal(attributeText(`a${char}b`), `a\\u{${code.toString(16)}}b`);
      assert.doesNotMatch(terminalText(`a${char}b`), new RegExp(char, 'u'));
      assert.ok(hidesText(`x${char}`));
    }
  });

  it('leaves ordinary text, tabs and line ends unmarked', () => {
    assert.equal(clean('héllo, wörld → ok'), 'héllo, wörld → ok');
    assert.equal(hidesText('\tconst a = "b";\r'), false);
    assert.equal(hidesText('a\x1bb'), true);
  });
});
