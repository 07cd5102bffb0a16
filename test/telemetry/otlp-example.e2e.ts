import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/workspace.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/redline.js');
const MISSION = path.join(ROOT, 'examples/already-passing/mission.yaml');

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly boolValue?: boolean;
}
interface OtlpSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: readonly { readonly key: string; readonly value: OtlpValue }[];
}
interface OtlpExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly { readonly key: string; readonly value: OtlpValue }[] };
    readonly scopeSpans: readonly { readonly scope: { readonly name: string }; readonly spans: readonly OtlpSpan[] }[];
  }[];
}

/** Runs node with `args` in `cwd`; resolves with its exit code and stderr (the test's server keeps answering meanwhile). */
function node(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('examples/otel/tracing.mjs (docs/observability.md)', () => {
  const requests: { url: string | undefined; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ url: request.url, headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  let dir = '';
  before(async () => {
    dir = await tempDir('redline-otlp-');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("exports a CLI run's spans over OTLP/HTTP as JSON to the configured collector", async () => {
    const { port } = server.address() as AddressInfo;
    const run = await node(
      [
        '--import',
        pathToFileURL(path.join(ROOT, 'examples/otel/tracing.mjs')).href,
        BIN,
        'run',
        MISSION,
        '--ledger',
        path.join(dir, 'ledger.db'),
      ],
      dir,
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`, OTEL_SERVICE_NAME: 'redline-otlp-test' },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /error|opentelemetry/i);
    assert.ok(requests.length > 0, 'the exporter sent its batch before the process exited');
    assert.deepEqual(
      requests.map(({ url, headers }) => [url, headers['content-type']]),
      requests.map(() => ['/v1/traces', 'application/json']),
    );
    const exports = requests.map(({ body }) => JSON.parse(body) as OtlpExport);
    const resources = exports.flatMap((item) => item.resourceSpans);
    assert.ok(
      resources.every((item) =>
        item.resource.attributes.some(({ key, value }) => key === 'service.name' && value.stringValue === 'redline-otlp-test'),
      ),
    );
    const scopes = resources.flatMap((item) => item.scopeSpans);
    assert.deepEqual([...new Set(scopes.map((item) => item.scope.name))], ['redline']);
    const spans = scopes.flatMap((item) => item.spans);
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [root] = byName('invoke_agent redline');
    assert.ok(root !== undefined && byName('invoke_agent redline').length === 1);
    const attribute = (span: OtlpSpan, key: string) => span.attributes.find((item) => item.key === key)?.value;
    assert.deepEqual(
      ['redline.mission.id', 'redline.outcome', 'redline.verification', 'redline.stop_reason'].map(
        (key) => attribute(root, key)?.stringValue,
      ),
      ['already-passing', 'complete_noop', 'verified', 'baseline_passed'],
    );
    assert.match(attribute(root, 'redline.chain.head')?.stringValue ?? '', /^[0-9a-f]{64}$/);
    const [baseline] = byName('redline.baseline');
    assert.equal(baseline?.parentSpanId, root.spanId);
    const tests = byName('execute_tool tests');
    assert.equal(tests.length, 1);
    assert.deepEqual(
      [tests[0]?.parentSpanId, attribute(tests[0] as OtlpSpan, 'redline.check.status')?.stringValue],
      [baseline?.spanId, 'pass'],
    );
    assert.ok(
      spans.every((span) => span.traceId === root.traceId),
      'one trace',
    );
  });

  it('runs without @opentelemetry/api installed', async () => {
    const hide = pathToFileURL(path.join(ROOT, 'test/api/hide-peers.mjs')).href;
    const run = await node(['--import', hide, BIN, 'run', MISSION, '--ledger', path.join(dir, 'hidden.db')], dir, {
      REDLINE_TEST_HIDE: '@opentelemetry/api',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /error|opentelemetry/i);
  });
});
