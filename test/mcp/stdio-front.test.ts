import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL_VERSIONS, StdioFront } from '../../src/mcp/stdio-front.js';

// The front answers the handshake before anything else is loaded; the spawned server is tested in mcp-server.e2e.ts.

function pipes() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: unknown[] = [];
  let buffer = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, end)));
      buffer = buffer.slice(end + 1);
    }
  });
  const send = (message: object): void => void input.write(`${JSON.stringify(message)}\n`);
  return { input, output, lines, send };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioFront', () => {
  it("agrees to the SDK's protocol versions, newest first", () => {
    assert.deepEqual(PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS);
    assert.equal(PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
  });

  it('answers initialize, ping and tools/list with no server connected, and hands every other message over in order once one connects', async () => {
    const { input, output, lines, send } = pipes();
    const front = new StdioFront({ input, output });
    const handshake = front.handshake({ quietMs: 60_000 });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', clientInfo: { name: 'codex', version: '9' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'redline_status' } })}\r\n`);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 'd', method: 'server/discover' });
    await handshake;
    assert.deepEqual(await front.client, { name: 'codex', version: '9' });
    assert.deepEqual(
      lines.map((line) => (line as { id: unknown }).id),
      [1, 'p', 3, 'd'],
    );
    assert.deepEqual(lines[3], { jsonrpc: '2.0', id: 'd', error: { code: -32601, message: 'Method not found' } });
    assert.deepEqual(lines[0], {
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'redline', version: '0.1.0' } },
    });
    const tools = (lines[2] as { result: { tools: { name: string; annotations: Record<string, unknown> }[] } }).result.tools;
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.annotations.readOnlyHint, tool.annotations.destructiveHint, tool.annotations.openWorldHint]),
      [
        ['redline_checks', true, false, false],
        ['redline_submit', false, false, false],
        ['redline_status', true, false, false],
      ],
    );

    const handed: unknown[] = [];
    front.onmessage = (message) => handed.push(message);
    await front.start();
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'redline_checks' } });
    await tick();
    assert.deepEqual(
      handed.map((message) => [(message as { id?: unknown }).id, (message as { method: string }).method]),
      [
        [undefined, 'notifications/initialized'],
        [2, 'tools/call'],
        [4, 'tools/call'],
      ],
    );
    await front.send({ jsonrpc: '2.0', id: 2, result: {} });
    await tick();
    assert.deepEqual(lines.at(-1), { jsonrpc: '2.0', id: 2, result: {} });
    input.end();
    await front.ended;
    await front.close();
  });

  it('answers a protocol version it does not speak with its newest, and ends the handshake after a quiet spell', async () => {
    const { input, output, lines, send } = pipes();
    const front = new StdioFront({ input, output });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {} } });
    await front.handshake({ quietMs: 20 });
    assert.equal((lines[0] as { result: { protocolVersion: string } }).result.protocolVersion, PROTOCOL_VERSIONS[0]);
    assert.deepEqual(await front.client, {});
    await front.close();
    assert.equal(input.isPaused(), true);
  });

  it('refuses every request but ping before initialize, and hands none of them to the server', async () => {
    const { input, output, lines, send } = pipes();
    const front = new StdioFront({ input, output });
    const handed: unknown[] = [];
    front.onmessage = (message) => handed.push(message);
    await front.start();
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'redline_submit' } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    send({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'redline_status' } });
    await tick();
    const refused = { code: -32600, message: 'Invalid Request: the server is not initialized; send initialize first' };
    assert.deepEqual(lines.slice(0, 3), [
      { jsonrpc: '2.0', id: 1, error: refused },
      { jsonrpc: '2.0', id: 2, error: refused },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
    assert.equal((lines[3] as { id: unknown }).id, 4);
    assert.deepEqual(
      handed.map((message) => (message as { id?: unknown }).id),
      [5],
    );
    await front.close();
  });

  it('says no client came when the input ends before initialize', async () => {
    const { input, output } = pipes();
    const front = new StdioFront({ input, output });
    input.end();
    await front.handshake();
    assert.equal(await front.client, undefined);
    await front.close();
  });
});
