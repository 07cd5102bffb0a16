#!/usr/bin/env node
// A small, deterministic heuristic judge for summaries (redline judge protocol `redline.judge/1`).
//
//   node summary-judge.mjs RUBRIC.json < request.json
//
// stdin:  {"protocol":"redline.judge/1","goal":…,"candidate":{"files":…,"value":"the summary"}}
// stdout: {"score":0..1,"findings":[{"reasonCode":…,"message":…}]}
//
// The rubric lists the concepts a good summary names, each with a weight and the case-insensitive
// regular expressions that count as naming it, plus a word limit:
//   {"maxWords": 40, "concepts": [{"id": "cause", "label": "…", "weight": 3, "patterns": ["connection[- ]pool"]}]}
// score = (weight of the concepts named / total weight) × length factor, where the length factor is 1
// within the limit and falls linearly to 0 at twice the limit. Keyword matching is a weak oracle: it
// cannot tell a correct statement from a wrong one that uses the right words, which is why a mission
// should use it as a semantic (advisory) check, never as a demand red line.
import { readFileSync } from 'node:fs';

class UsageError extends Error {}

function loadRubric(file) {
  if (file === undefined) throw new UsageError('usage: summary-judge.mjs RUBRIC.json < request.json');
  let rubric;
  try {
    rubric = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the rubric ${file}: ${error.message}`);
  }
  if (!Number.isInteger(rubric.maxWords) || rubric.maxWords < 1) throw new UsageError('rubric.maxWords must be a positive integer');
  if (!Array.isArray(rubric.concepts) || rubric.concepts.length === 0) throw new UsageError('rubric.concepts must be a non-empty array');
  for (const concept of rubric.concepts) {
    if (typeof concept.id !== 'string' || !Array.isArray(concept.patterns) || concept.patterns.length === 0) {
      throw new UsageError(`each concept needs an id and a non-empty patterns array, got ${JSON.stringify(concept)}`);
    }
  }
  return rubric;
}

function readRequest() {
  let request;
  try {
    request = JSON.parse(readFileSync(0, 'utf8'));
  } catch (error) {
    throw new UsageError(`stdin is not JSON: ${error.message}`);
  }
  if (request?.protocol !== 'redline.judge/1')
    throw new UsageError(`expected protocol redline.judge/1, got ${JSON.stringify(request?.protocol)}`);
  return request;
}

/** Scores one summary against the rubric. */
export function judge(rubric, value) {
  if (typeof value !== 'string') {
    return {
      score: 0,
      findings: [
        {
          reasonCode: 'summary.not_text',
          message: `expected the summary as a string value, got ${value === null ? 'null' : typeof value}`,
        },
      ],
    };
  }
  const text = value.trim();
  if (text === '') return { score: 0, findings: [{ reasonCode: 'summary.empty', message: 'the summary is empty' }] };

  const findings = [];
  let total = 0;
  let named = 0;
  for (const concept of rubric.concepts) {
    const weight = concept.weight ?? 1;
    total += weight;
    if (concept.patterns.some((pattern) => new RegExp(pattern, 'i').test(text))) named += weight;
    else findings.push({ reasonCode: `summary.missing:${concept.id}`, message: `does not name ${concept.label ?? concept.id}` });
  }
  const words = text.split(/\s+/).length;
  let lengthFactor = 1;
  if (words > rubric.maxWords) {
    lengthFactor = Math.max(0, 1 - (words - rubric.maxWords) / rubric.maxWords);
    findings.push({ reasonCode: 'summary.too_long', message: `${words} words, over the limit of ${rubric.maxWords}` });
  }
  return { score: Math.round((named / total) * lengthFactor * 1000) / 1000, findings };
}

try {
  const rubric = loadRubric(process.argv[2]);
  const request = readRequest();
  process.stdout.write(`${JSON.stringify(judge(rubric, request.candidate?.value))}\n`);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`summary-judge: ${error.message}\n`);
  process.exitCode = 2;
}
