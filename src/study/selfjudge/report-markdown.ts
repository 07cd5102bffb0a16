import type { Proportion } from '../proportions.js';
import type { SelfJudgeStudy } from './run-selfjudge-study.js';

const CONDITION_NAMES = { redline: 'A red line', selfjudge: 'B self-judge' } as const;

const percent = (value: number): string => `${Math.round(value * 100)}%`;

/** `2/3 (67%, 95% CI 21–94%)`. */
export function proportionText(p: Proportion): string {
  return p.rate === null ? '–' : `${p.count}/${p.n} (${percent(p.rate)}, 95% CI ${percent(p.low)}–${percent(p.high)})`;
}

/** `, protocol published (the script's prompts, parsing and test; tests injected)`, or nothing under the redline protocol. */
const protocolText = ({ protocol, injectTests }: SelfJudgeStudy['config']): string =>
  protocol === undefined
    ? ''
    : `, protocol ${protocol} (the script's prompts, parsing and test${injectTests === true ? '; tests injected' : ''})`;

/** Per-trial marks: ✓ converged, ✗ not. */
const marks = (values: readonly boolean[]): string => values.map((value) => (value ? '✓' : '✗')).join(' ');

/**
 * The study as Markdown: the convergence table per task and condition, error counts with Wilson intervals,
 * the A vs B comparison, what N trials can show, the repair boundary by class, and how to find the runs.
 * Task ids come from task files: the caller passes the result through its terminal-text choke point.
 */
export function renderSelfJudgeMarkdown(study: SelfJudgeStudy, { figure }: { figure?: string } = {}): string {
  const { config, power } = study;
  const lines = [
    `# Red line vs self-judge (study ${study.studyId})`,
    '',
    `Task set ${config.taskSet} (${config.tasks.length} task(s)), ${config.trials} trial(s) per task and condition, attempt cap ${config.maxAttempts}, proposer ${config.proposer}, self-judge prompt ${config.judgePrompt}${protocolText(config)}.`,
    'Converged: the tests pass on the code the run stopped on. False positive: the judge said yes and the tests fail. False negative: the tests passed at an attempt and the judge said no there. Degradation: passing code later made failing. Intervals are Wilson 95%.',
    '',
    '| task | condition | converged per trial | attempts per trial | converged | false positives | false negatives | degradations |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const cell of study.cells) {
    const own = study.trials.filter((trial) => trial.condition === cell.condition && (cell.task === 'all' || trial.task === cell.task));
    const perTrial = cell.task === 'all' ? '' : marks(own.map((trial) => trial.converged));
    const attempts = cell.task === 'all' ? `mean ${cell.meanAttempts.mean} ± ${cell.meanAttempts.sd}` : cell.attempts.join(' ');
    lines.push(
      `| ${cell.task === 'all' ? '**all**' : cell.task} | ${CONDITION_NAMES[cell.condition]} | ${perTrial} | ${attempts} | ${proportionText(cell.converged)} | ${proportionText(cell.falsePositives)} | ${proportionText(cell.falseNegatives)} | ${proportionText(cell.degradations)} |`,
    );
  }
  if (study.comparisons.length > 0) {
    lines.push(
      '',
      '## A vs B: convergence',
      '',
      '| task | A red line | B self-judge | Fisher exact p | trials per condition to detect this difference |',
      '|---|---|---|---|---|',
    );
    for (const row of study.comparisons) {
      lines.push(
        `| ${row.task} | ${proportionText(row.redline)} | ${proportionText(row.selfjudge)} | ${row.fisherP} | ${row.trialsNeeded === null ? 'no difference observed' : row.trialsNeeded} |`,
      );
    }
  }
  lines.push(
    '',
    `## What ${power.trialsPerCondition} trial(s) per cell can show`,
    '',
    `Even a clean sweep is vague: ${power.trialsPerCondition} of ${power.trialsPerCondition} has a 95% interval of ${percent(power.allOf.low)}–${percent(power.allOf.high)}, and 0 of ${power.trialsPerCondition} one of ${percent(power.noneOf.low)}–${percent(power.noneOf.high)}.`,
    `The most extreme split possible, ${power.trialsPerCondition} of ${power.trialsPerCondition} against 0 of ${power.trialsPerCondition}, has Fisher exact p = ${power.extremeP}${power.extremeP > 0.05 ? ': no result of this size can show a difference at the 5% level' : ''}.`,
    `Trials per condition needed to detect a difference in convergence rate (two-sided α 0.05, power 0.8, rates around 50%): ${power.needed.map(({ difference, trials }) => `${Math.round(difference * 100)} points: ${trials}`).join('; ')}.`,
  );
  if (study.byClass !== undefined) {
    const attempts = Array.from({ length: config.maxAttempts }, (_, index) => index + 1);
    lines.push(
      '',
      '## Repair boundary: fix-loop success by attempt',
      '',
      `| class | tasks | trials | ${attempts.map((k) => `by ${k}`).join(' | ')} |`,
      `|---|---|---|${attempts.map(() => '---|').join('')}`,
    );
    for (const row of study.byClass) {
      lines.push(
        `| ${row.taskClass} | ${row.tasks.length} | ${row.trials} | ${row.byAttempt.map((p) => (p.rate === null ? '–' : `${percent(p.rate)} (${percent(p.low)}–${percent(p.high)})`)).join(' | ')} |`,
      );
    }
  }
  lines.push('', '## The runs', '');
  for (const [condition, taskType] of Object.entries(study.taskTypes)) {
    lines.push(
      `- ${CONDITION_NAMES[condition as keyof typeof CONDITION_NAMES]}: task type \`${taskType}\` (\`redline report stop-quality --task-type ${taskType}\`, \`redline replay --task-type ${taskType} --policy FILE\`)`,
    );
  }
  lines.push(`Every trial is a sealed run whose mission id is \`study-${study.studyId}.<task>.<condition>.<trial>\`.`);
  if (figure !== undefined) lines.push('', `Figure: ${figure}`);
  return `${lines.join('\n')}\n`;
}
