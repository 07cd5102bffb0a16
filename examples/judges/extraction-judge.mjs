#!/usr/bin/env node
// A small, deterministic heuristic judge for structured extraction (redline judge protocol
// `redline.judge/1`): is each extracted field present, well formed, and grounded in the source document?
//
//   node extraction-judge.mjs RUBRIC.json < request.json
//
// stdin:  {"protocol":"redline.judge/1","goal":…,"candidate":{"files":…,"value":{…} or "JSON text"}}
// stdout: {"score":0..1,"findings":[{"reasonCode":…,"message":…}]}
//
// The source document is the mission goal (the task text holds the document to extract from). The
// rubric names the scored fields and their kinds:
//   {"fields": {"name": "text", "date": "date", "amount": "number"}}
// A field earns its share of the score when it is present, has the right form (text: a non-empty
// string; date: an ISO YYYY-MM-DD string of a real date; number: a finite number) and appears in the
// source in some common rendering. Grounding catches invented values, not a wrong pick among values
// that do appear (a due date instead of the invoice date): that takes a human or a demand check.
import { readFileSync } from 'node:fs';

const KINDS = new Set(['text', 'date', 'number']);
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

class UsageError extends Error {}

function loadRubric(file) {
  if (file === undefined) throw new UsageError('usage: extraction-judge.mjs RUBRIC.json < request.json');
  let rubric;
  try {
    rubric = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read the rubric ${file}: ${error.message}`);
  }
  const fields = Object.entries(rubric.fields ?? {});
  if (fields.length === 0) throw new UsageError('rubric.fields must name at least one field');
  for (const [field, kind] of fields) {
    if (!KINDS.has(kind))
      throw new UsageError(`rubric.fields.${field}: expected one of ${[...KINDS].join(', ')}, got ${JSON.stringify(kind)}`);
  }
  return fields;
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

/** The ways a document may write an ISO date. */
function dateRenderings(iso) {
  const [year, month, day] = iso.split('-').map(Number);
  const name = MONTHS[month - 1];
  const mm = String(month).padStart(2, '0');
  const dd = String(day).padStart(2, '0');
  return [
    iso,
    `${name} ${day}, ${year}`,
    `${day} ${name} ${year}`,
    `${name.slice(0, 3)} ${day}, ${year}`,
    `${day} ${name.slice(0, 3)} ${year}`,
    `${mm}/${dd}/${year}`,
    `${month}/${day}/${year}`,
  ];
}

/** The ways a document may write an amount. */
function numberRenderings(n) {
  const grouped = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n);
  const renderings = [grouped, grouped.replace(/,/g, ''), String(n)];
  if (Number.isInteger(n)) renderings.push(new Intl.NumberFormat('en-US').format(n));
  return renderings;
}

function isRealIsoDate(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Scores one extracted record against the rubric's fields and the source text. */
export function judge(fields, sourceText, raw) {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      return { score: 0, findings: [{ reasonCode: 'extraction.not_json', message: `the value is not JSON: ${error.message}` }] };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    return { score: 0, findings: [{ reasonCode: 'extraction.not_object', message: `expected a JSON object, got ${got}` }] };
  }
  const source = String(sourceText ?? '').toLowerCase();
  const findings = [];
  let earned = 0;
  for (const [field, kind] of fields) {
    const got = value[field];
    if (got === undefined || got === null || got === '') {
      findings.push({ reasonCode: `extraction.missing:${field}`, message: `${field} is missing` });
      continue;
    }
    let renderings;
    if (kind === 'text') {
      if (typeof got !== 'string') {
        findings.push({ reasonCode: `extraction.bad_format:${field}`, message: `${field} should be text, got ${JSON.stringify(got)}` });
        continue;
      }
      renderings = [got.trim()];
    } else if (kind === 'date') {
      if (typeof got !== 'string' || !isRealIsoDate(got)) {
        findings.push({
          reasonCode: `extraction.bad_format:${field}`,
          message: `${field} should be an ISO date (YYYY-MM-DD), got ${JSON.stringify(got)}`,
        });
        continue;
      }
      renderings = dateRenderings(got);
    } else {
      if (typeof got !== 'number' || !Number.isFinite(got)) {
        findings.push({ reasonCode: `extraction.bad_format:${field}`, message: `${field} should be a number, got ${JSON.stringify(got)}` });
        continue;
      }
      renderings = numberRenderings(got);
    }
    if (renderings.some((rendering) => rendering !== '' && source.includes(rendering.toLowerCase()))) earned += 1;
    else
      findings.push({
        reasonCode: `extraction.ungrounded:${field}`,
        message: `${field} ${JSON.stringify(got)} does not appear in the source document`,
      });
  }
  return { score: Math.round((earned / fields.length) * 1000) / 1000, findings };
}

try {
  const fields = loadRubric(process.argv[2]);
  const request = readRequest();
  process.stdout.write(`${JSON.stringify(judge(fields, request.goal, request.candidate?.value))}\n`);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`extraction-judge: ${error.message}\n`);
  process.exitCode = 2;
}
