import { MissingPeerError } from '../errors/missing-peer-error.js';
import type { Spec } from 'vega';
import { coldStartSpec, reachSpec } from './figure-specs.js';
import { writeOutFiles } from './out-dir.js';
import type { StopRulesStudy } from './run-study.js';

/** One rendered figure. */
export interface Figure {
  /** File name, e.g. `reach-vs-sigma.svg`. */
  readonly file: string;
  readonly title: string;
  readonly svg: string;
}

/**
 * Renders the study's figures to SVG with Vega, headless (no browser, no canvas). Vega is loaded only
 * here, so the study itself never pays for it.
 */
export async function renderFigures(study: StopRulesStudy): Promise<Figure[]> {
  const vega = await MissingPeerError.load(() => import('vega'), { packageName: 'vega', purpose: "draw the study's SVG figures" });
  const render = async (spec: Spec): Promise<string> => {
    const view = new vega.View(vega.parse(spec), { renderer: 'none' });
    try {
      return `${await view.toSVG()}\n`;
    } finally {
      view.finalize();
    }
  };
  return [
    { file: 'reach-vs-sigma.svg', title: 'True and observed reach vs judge noise σ, per strategy', svg: await render(reachSpec(study)) },
    {
      file: 'cold-start.svg',
      title: `Adaptive's cold start: true reach vs warm-up tasks at σ = ${study.config.coldStartSigma}`,
      svg: await render(coldStartSpec(study)),
    },
  ];
}

/**
 * Renders the figures into `dir` (created if missing) and returns them with the paths written.
 * @throws {StudyOptionError} for option `out` when `dir` is a file, lies under one, or cannot be written.
 */
export async function writeFigures({
  study,
  dir,
}: {
  study: StopRulesStudy;
  dir: string;
}): Promise<(Figure & { readonly path: string })[]> {
  const figures = await renderFigures(study);
  const paths = await writeOutFiles({ dir, files: Object.fromEntries(figures.map((figure) => [figure.file, figure.svg])) });
  return figures.map((figure, index) => ({ ...figure, path: paths[index] as string }));
}
