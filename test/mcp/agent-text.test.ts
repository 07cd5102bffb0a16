import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/finding.js';
import { agentFindings, agentText, MESSAGE_CAP, SHORT_MESSAGE_CAP } from '../../src/mcp/agent-text.js';

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

  it('lists failing findings first, each distinct one once with its count', () => {
    const findings = [
      ...Array.from({ length: 3 }, (_, index) => finding('pass', `passed ${index}`)),
      finding('fail', 'failed \x07'),
      finding('error', 'broke'),
      finding('fail', 'failed \x07'),
    ];
    const shown = agentFindings(findings, { bytes: 32 * 1024 });
    assert.equal(shown.omitted, 0);
    assert.deepEqual(
      shown.findings.map((item) => [item.status, item.message, item.count]),
      [
        ['fail', 'failed \\x07', 2],
        ['error', 'broke', undefined],
        ['pass', 'passed 0', undefined],
        ['pass', 'passed 1', undefined],
        ['pass', 'passed 2', undefined],
      ],
    );
  });

  it('fits the room it is given: full findings for the first half, short ones after, and counts the rest', () => {
    const findings = Array.from({ length: 120 }, (_, index) => ({
      ...finding('fail', `${index} `.repeat(1500)),
      reasonCodes: [`test.failed:t${index}`],
    }));
    const bytes = 30 * 1024;
    const shown = agentFindings(findings, { bytes });
    assert.ok(Buffer.byteLength(JSON.stringify(shown.findings)) <= bytes);
    assert.equal(shown.findings.length + shown.omitted, 120);
    assert.ok(shown.findings.length >= 30, `listed ${shown.findings.length}`);
    assert.match(shown.findings[0]?.message ?? '', new RegExp(`more characters cut\\)$`));
    assert.ok((shown.findings[0]?.message.length ?? 0) > MESSAGE_CAP);
    assert.ok((shown.findings.at(-1)?.message.length ?? 0) < SHORT_MESSAGE_CAP + 50);
    assert.deepEqual(shown.findings.at(-1)?.reasonCodes, [`test.failed:t${shown.findings.length - 1}`]);
  });
});
