import type { Context, Hono } from 'hono';
import { ReviewError } from '../review/review-error.js';
import type { QueueAdmin } from '../review/queue-admin.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import { fieldsMatch, filtersPage, proposalFields, ruleForm, type RuleFields } from './filters-page.js';
import { html, type Html } from './html.js';
import type { Session } from './sessions.js';

type Env = { Variables: { session: Session } };
type Render = (c: Context<Env>, title: string, body: Html, status?: number) => Promise<Response>;

const field = (form: Record<string, unknown>, name: string): string => (typeof form[name] === 'string' ? (form[name] as string) : '');

/**
 * The filter-rule pages (docs/review-app.md): the rules with what each caught (`GET /filters`), a suggestion made a
 * rule (`GET /filters/new?label=…`, filled in from what the labelled items share; `POST /filters`), and a
 * rule disabled or enabled (`POST /filters/:id`). The session's reviewer is who the journal names.
 */
export function filterRoutes(app: Hono<Env>, { queue, render }: { queue: ReviewerQueue & QueueAdmin; render: Render }): void {
  const list = async (c: Context<Env>, message?: Html): Promise<Response> => {
    const [rules, stats] = await Promise.all([queue.filterRules(), queue.stats()]);
    const body = filtersPage({
      rules,
      suggestions: stats.suggestions,
      session: c.get('session'),
      ...(message === undefined ? {} : { message }),
    });
    return render(c, 'Filter rules', body);
  };

  app.get('/filters', async (c) => {
    const added = c.req.query('added');
    // Only a rule the queue holds is named back: nothing from the URL is echoed.
    const rule = added === undefined ? undefined : (await queue.filterRules()).find((candidate) => candidate.id === added);
    return list(
      c,
      rule === undefined
        ? undefined
        : html`<p class="notice" role="status" id="added">
            Rule <code>${rule.id}</code> is in force: items it matches get ${rule.label}.
          </p>`,
    );
  });

  app.get('/filters/new', async (c) => {
    const label = c.req.query('label');
    const labels = queue.config.labels.labels;
    if (label === undefined || !labels.includes(label)) {
      const blank: RuleFields = {
        label: labels[0] ?? '',
        taskType: '',
        stopReason: '',
        reasonCodes: '',
        pattern: '',
        action: 'return',
        comment: '',
      };
      return render(c, 'New filter rule', ruleForm({ fields: blank, labels, session: c.get('session') }));
    }
    const proposal = await queue.proposeFilterRule(label);
    return render(c, 'New filter rule', ruleForm({ fields: proposalFields(proposal), labels, proposal, session: c.get('session') }));
  });

  app.post('/filters', async (c) => {
    const form = await c.req.parseBody();
    const action = field(form, 'action') === 'reject' ? 'reject' : 'return';
    const fields: RuleFields = {
      label: field(form, 'label'),
      taskType: field(form, 'taskType'),
      stopReason: field(form, 'stopReason'),
      reasonCodes: field(form, 'reasonCodes'),
      pattern: field(form, 'pattern'),
      action,
      comment: field(form, 'comment'),
    };
    try {
      const { rule } = await queue.addFilterRule({
        label: fields.label,
        match: fieldsMatch(fields),
        action,
        ...(fields.comment.trim() === '' ? {} : { comment: fields.comment }),
        by: c.get('session').reviewer,
      });
      return c.redirect(`/filters?added=${encodeURIComponent(rule.id)}`, 303);
    } catch (error) {
      if (!(error instanceof TypeError || error instanceof ReviewError)) throw error;
      const message = html`<p class="error" role="alert" id="problem">${error.message}</p>`;
      return render(
        c,
        'New filter rule',
        ruleForm({ fields, labels: queue.config.labels.labels, session: c.get('session'), message }),
        400,
      );
    }
  });

  app.post('/filters/:id', async (c) => {
    const form = await c.req.parseBody();
    try {
      await queue.setFilterRule(c.req.param('id'), { enabled: form.enabled === 'true', by: c.get('session').reviewer });
    } catch (error) {
      if (!(error instanceof ReviewError)) throw error;
      return list(c, html`<p class="error" role="alert" id="problem">${error.message}</p>`);
    }
    return c.redirect('/filters', 303);
  });
}
