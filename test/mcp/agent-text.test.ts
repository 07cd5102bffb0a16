import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/finding.js';
import { agentFindings, agentText, FINDINGS_CAP, MESSAGE_CAP } from '../../src/mcp/agent-text.js';

const finding = (status: Finding['status'], message: string): Finding => ({
  check: 'tests',
  stage: 'fast',
  tier: 'demand',
  status,
  reasonCodes: [`test.${status}:x`],
  message,
});

describe('agent text', () => {
  it('spells out control and bidi characters but keeps newlines', () => {
    assert.equal(agentText('a\x1b[31mred\x1b[0m\nline 2\r\u202eevil'), 'a\\x1b[31mred\\x1b[0m\nline 2\\r\\u{202e}evil');
  });

  it('cuts a message at the cap and says how much was cut', () => {
    const text = agentText('x'.repeat(MESSAGE_CAP + 500));
    assert.equal(text, `${'x'.repeat(MESSAGE_CAP)}… (500 more characters cut)`);
  });

  it('lists failing findings first, at most the cap, and counts the rest', () => {
    const findings = [
      ...Array.from({ length: FINDINGS_CAP }, (_, index) => finding('pass', `passed ${index}`)),
      finding('fail', 'failed \x07'),
      finding('error', 'broke'),
    ];
    const shown = agentFindings(findings);
    assert.equal(shown.findings.length, FINDINGS_CAP);
    assert.equal(shown.omitted, 2);
    assert.deepEqual(
      shown.findings.slice(0, 2).map((item) => [item.status, item.message]),
      [
        ['fail', 'failed \\x07'],
        ['error', 'broke'],
      ],
    );
  });
});
