import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { longTimeoutSignal, MAX_TIMER_DELAY_MS, setLongTimeout } from '../../src/process/long-timeout.js';

describe('setLongTimeout', () => {
  afterEach(() => mock.timers.reset());

  it('waits out a delay beyond setTimeout’s 2^31−1 ms limit in steps, and fires once at its end', () => {
    // The mocked clock overflows like the real one: a plain setTimeout of 2^31 ms would fire after 1 ms.
    mock.timers.enable({ apis: ['setTimeout'] });
    let fired = 0;
    setLongTimeout({ delayMs: 3 * MAX_TIMER_DELAY_MS + 5, onTimeout: () => (fired += 1) });
    mock.timers.tick(1);
    assert.equal(fired, 0);
    // One step per tick: the mocked clock re-arms a timer set during a tick from the tick's end.
    for (const step of [MAX_TIMER_DELAY_MS - 1, MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, 4]) {
      mock.timers.tick(step);
      assert.equal(fired, 0);
    }
    mock.timers.tick(1);
    assert.equal(fired, 1);
    mock.timers.tick(MAX_TIMER_DELAY_MS);
    assert.equal(fired, 1);
  });

  it('can be cleared between steps', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let fired = 0;
    const timer = setLongTimeout({ delayMs: 2 * MAX_TIMER_DELAY_MS, onTimeout: () => (fired += 1) });
    mock.timers.tick(MAX_TIMER_DELAY_MS + 1);
    timer.clear();
    mock.timers.tick(2 * MAX_TIMER_DELAY_MS);
    assert.equal(fired, 0);
  });

  it('fires short and past delays like setTimeout, never fires Infinity, and refuses NaN', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const fired: string[] = [];
    setLongTimeout({ delayMs: 10, onTimeout: () => fired.push('10') });
    setLongTimeout({ delayMs: -5, onTimeout: () => fired.push('-5') });
    setLongTimeout({ delayMs: Infinity, onTimeout: () => fired.push('Infinity') });
    mock.timers.tick(10);
    assert.deepEqual(fired, ['-5', '10']);
    assert.throws(
      () => setLongTimeout({ delayMs: NaN, onTimeout: () => undefined }),
      /Expected delayMs to be a number of milliseconds, got NaN/,
    );
  });

  it('does not fire at once on the real clock, nor warn of an overflow', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): number => warnings.push(warning.name);
    // Only the overflow matters here (the mocked clock above warns that it is experimental).
    process.on('warning', onWarning);
    let fired = false;
    const timer = setLongTimeout({ delayMs: 2 ** 31, onTimeout: () => (fired = true) });
    const { signal, clear } = longTimeoutSignal({ delayMs: 597 * 3_600_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    timer.clear();
    clear();
    assert.equal(fired, false);
    assert.equal(signal.aborted, false);
    assert.deepEqual(
      warnings.filter((name) => name === 'TimeoutOverflowWarning'),
      [],
    );
  });
});

describe('longTimeoutSignal', () => {
  it('aborts with a TimeoutError, like AbortSignal.timeout', async () => {
    const { signal } = longTimeoutSignal({ delayMs: 1 });
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    assert.equal((signal.reason as Error).name, 'TimeoutError');
  });
});
