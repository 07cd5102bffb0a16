/**
 * Budget-cap alerts (docs/review.md, 'The queue'): when too many recent runs end on a budget cap, the budgets (or the tasks)
 * need a person's attention. The policy is pure and the adapters apply it in the transaction that stores
 * each run's report; {@link budgetAlerts} then logs the alert and posts it to a webhook.
 */

export interface AlertPolicy {
  /** A share of budget-capped runs above this raises an alert. @default 0.5 */
  readonly threshold: number;
  /** How many of the most recent runs the share is computed over; no alert before this many. @default 20 */
  readonly window: number;
}

export const ALERTS: AlertPolicy = Object.freeze({ threshold: 0.5, window: 20 });

/** What the caller reports when a run is sealed. */
export interface RunReport {
  readonly runId: string;
  /** The run ended because a budget (attempts, tokens, wall clock, cost) ran out. */
  readonly budgetCapped: boolean;
}

/** How posting an alert to the webhook went. */
export interface WebhookDelivery {
  /** The webhook's origin only: its path or query often holds a secret token. */
  readonly origin: string;
  readonly ok: boolean;
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** Why the delivery failed: a status, a timeout, a network error. */
  readonly error?: string;
  readonly at: number;
}

export interface Alert {
  readonly id: string;
  readonly kind: 'budget_cap_share';
  /** Share of budget-capped runs in the window. */
  readonly share: number;
  readonly threshold: number;
  readonly window: number;
  /** The budget-capped runs of the window, oldest first: the evidence. */
  readonly cappedRunIds: readonly string[];
  readonly raisedAt: number;
  readonly webhook?: WebhookDelivery;
}

/** Validated, frozen alert settings; missing ones take the defaults. */
export function alertPolicy(options: Partial<AlertPolicy> = {}): AlertPolicy {
  const policy = { ...ALERTS, ...options };
  if (!(policy.threshold >= 0 && policy.threshold < 1))
    throw new TypeError(`Expected the alert threshold to be a fraction in [0, 1), got ${policy.threshold}`);
  if (!Number.isInteger(policy.window) || policy.window < 1)
    throw new TypeError(`Expected the alert window to be a positive integer, got ${policy.window}`);
  return Object.freeze({ threshold: policy.threshold, window: policy.window });
}

/** The alert state after a run report: `active` while the share stays above the threshold. */
export interface AlertStep {
  readonly active: boolean;
  /** Present when the share just crossed the threshold: one alert per crossing, not one per run. */
  readonly raise?: Pick<Alert, 'share' | 'threshold' | 'window' | 'cappedRunIds'>;
}

/** Applies the policy to the newest reports (oldest first; the last `window` count) and the current state. */
export function alertStep({ policy, active, recent }: { policy: AlertPolicy; active: boolean; recent: readonly RunReport[] }): AlertStep {
  const window = recent.slice(-policy.window);
  if (window.length < policy.window) return { active };
  const capped = window.filter((report) => report.budgetCapped).map((report) => report.runId);
  const share = capped.length / window.length;
  if (share <= policy.threshold) return { active: false };
  return active ? { active } : { active: true, raise: { share, threshold: policy.threshold, window: policy.window, cappedRunIds: capped } };
}

/** The alert as one log line. */
export function alertLine(alert: Alert): string {
  const percent = (share: number): string => `${Math.round(share * 100)}%`;
  return `redline alert ${alert.kind}: ${alert.cappedRunIds.length} of the last ${alert.window} runs (${percent(alert.share)}) hit a budget cap, above the ${percent(alert.threshold)} threshold`;
}

export interface AlertLogger {
  warn(message: string): void;
}

export interface WebhookOptions {
  /** An http(s) URL that receives a JSON POST per alert. */
  readonly url: string;
  /** @default 5000 */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What budget-cap alerts ask of a review queue (its `ReviewerQueue` view has both). */
export interface RunReports {
  /** Stores a finished run's report and applies the alert policy; see `budgetAlerts`. A repeated run id is a no-op. */
  recordRun(report: RunReport): Promise<{ alert?: Alert }>;
  /** Records how posting the alert to the webhook went. */
  recordAlertDelivery(alertId: string, delivery: WebhookDelivery): Promise<void>;
}

export interface BudgetAlertsOptions {
  readonly queue: RunReports;
  /** Where the log line goes. @default console */
  readonly logger?: AlertLogger;
  readonly webhook?: WebhookOptions;
  readonly _internal?: { readonly now?: () => number };
}

export interface BudgetAlerts {
  /**
   * Stores the run's report; when the window's share of budget-capped runs crosses the threshold,
   * returns the alert after logging it and posting it to the webhook. A failed post is recorded on the
   * alert, never thrown.
   */
  runFinished(report: RunReport): Promise<{ alert?: Alert }>;
}

/**
 * Budget-cap alerts over a review queue's storage.
 * @example
 * const alerts = budgetAlerts({ queue, webhook: { url: 'https://hooks.example.com/redline' } });
 * const { alert } = await alerts.runFinished({ runId, budgetCapped: result.stopReason.startsWith('budget_') });
 */
export function budgetAlerts({ queue, logger = console, webhook, _internal = {} }: BudgetAlertsOptions): BudgetAlerts {
  const now = _internal.now ?? Date.now;
  if (webhook !== undefined) checkWebhook(webhook);
  return {
    async runFinished(report) {
      const { alert } = await queue.recordRun(report);
      if (alert === undefined) return {};
      logger.warn(alertLine(alert));
      if (webhook === undefined) return { alert };
      const delivery = await postAlert(webhook, alert, now);
      await queue.recordAlertDelivery(alert.id, delivery);
      return { alert: { ...alert, webhook: delivery } };
    },
  };
}

function checkWebhook({ url, timeoutMs = 5000 }: WebhookOptions): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new TypeError(`Expected the webhook url to be an http(s) URL, got ${JSON.stringify(url)}`);
  if (!(timeoutMs > 0)) throw new TypeError(`Expected the webhook timeoutMs to be positive, got ${timeoutMs}`);
}

/** Posts `{ type, text, alert }` as JSON (`text` makes chat webhooks show the line as it is). */
async function postAlert(
  { url, timeoutMs = 5000, headers = {} }: WebhookOptions,
  alert: Alert,
  now: () => number,
): Promise<WebhookDelivery> {
  const { origin } = new URL(url);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'redline', ...headers },
      body: JSON.stringify({ type: 'redline.alert', text: alertLine(alert), alert }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Read the answer to the end so the connection is released.
    await response.arrayBuffer().catch(() => undefined);
    return response.ok
      ? { origin, ok: true, status: response.status, at: now() }
      : { origin, ok: false, status: response.status, error: `HTTP ${response.status}`, at: now() };
  } catch (error) {
    const reason = (error as Error)?.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : describe(error);
    return { origin, ok: false, error: reason, at: now() };
  }
}

/** `fetch failed` says little; its cause (ECONNREFUSED, …) says what happened. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const message = (error as Error)?.message ?? String(error);
  return cause?.code !== undefined ? `${message}: ${cause.code}` : cause?.message !== undefined ? `${message}: ${cause.message}` : message;
}
