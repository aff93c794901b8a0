// A grading's result as the pages show it: the verdict in words and its
// sentence, the compiler's diagnostics at their lines, the first wrong
// element with the inputs there, the time against the reference's as a bar
// chart with the bar to pass, the virtual GPU's diagnostics and counters at
// their lines, the device (only where a kernel ran), the kernels' printed
// output, the certificate the submission earned, and for a trial its label
// ("Trial at n = 1,000,003 — not recorded; Submit to be graded"). `marksOf`
// gives what the editor marks at its lines.

import { h, link } from './dom.js';
import { formatMs, formatRatio } from './format.js';

export const VERDICT_WORDS = {
  passed: 'Passed',
  rejected: 'Rejected',
  compile_error: 'Compile error',
  timeout: 'Timed out',
  memory_error: 'Memory error',
  runtime_error: 'Runtime error',
  wrong_answer: 'Wrong answer',
  too_slow: 'Too slow',
  internal_error: "kgrade's own error (not yours: try again)",
};

export function verdictBadge(verdict) {
  return h('span', { class: `verdict ${verdict || 'none'}` }, VERDICT_WORDS[verdict] || verdict || '—');
}

// What the editor marks: compile diagnostics, faults at lines, and the
// counters that name a line.
export function marksOf(result) {
  const marks = [];
  for (const d of (result.compile && result.compile.diagnostics) || []) {
    if (d.line) marks.push({ line: d.line, column: d.column || 1, severity: d.severity, message: d.message });
  }
  for (const d of result.diagnostics || []) {
    if (d.line) marks.push({ line: d.line, column: 1, severity: 'error', message: d.message });
  }
  for (const c of counterNotes(result)) marks.push({ line: c.line, column: 1, severity: 'warning', message: c.text });
  return marks;
}

function counterNotes(result) {
  const counters = (result.performance && result.performance.counters) || {};
  const notes = [];
  const bank = counters.worst_bank_conflict;
  if (bank && bank.ways > 1 && bank.line) {
    notes.push({ line: bank.line, text: `${bank.ways}-way bank conflict, line ${bank.line}` });
  }
  const sectors = counters.worst_sectors_per_request;
  if (sectors && sectors.sectors > 4 && sectors.line) {
    notes.push({
      line: sectors.line,
      text: `${sectors.sectors} memory sectors per request (uncoalesced), line ${sectors.line}`,
    });
  }
  return notes;
}

function lineButton(line, editor) {
  if (!line) return null;
  return h('button', { type: 'button', class: 'link-button', onclick: () => editor && editor.goTo(line) },
    `line ${line}`);
}

function compileSection(result, editor) {
  const diagnostics = (result.compile && result.compile.diagnostics) || [];
  if (!diagnostics.length) return null;
  return h('section', { class: 'diagnostics' }, h('h3', {}, 'The compiler says'),
    h('ul', {}, diagnostics.map((d) => h('li', { class: d.severity },
      h('span', { class: 'severity' }, d.severity), ' ', lineButton(d.line, editor),
      d.line ? ': ' : '', h('code', {}, d.message)))));
}

// "n = 1,000,003" or "rows = 33, cols = 70".
export function sizesText(sizes) {
  return Object.entries(sizes || {}).map(([k, v]) => `${k} = ${Number(v).toLocaleString('en')}`).join(', ');
}

// The inputs at the wrong element, beside what was expected and got.
function inputsTable(m) {
  const inputs = m.inputs || [];
  if (!inputs.length) return null;
  return h('table', { class: 'mismatch-inputs' },
    h('caption', {}, `At ${m.buffer}'s wrong element, the inputs held`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Input'), h('th', { scope: 'col' }, 'Value'))),
    h('tbody', {}, inputs.map((i) => h('tr', {}, h('td', {}, h('code', {}, `${i.name}[${m.index}]`)),
      h('td', {}, h('code', {}, i.value))))));
}

function mismatchSection(result) {
  const cases = (result.correctness && result.correctness.cases) || [];
  const wrong = cases.find((c) => !c.passed && c.first_mismatch);
  if (!wrong) return null;
  const m = wrong.first_mismatch;
  const where = m.row !== null && m.row !== undefined ? `row ${m.row}, column ${m.col}` : `index ${m.index}`;
  return h('section', { class: 'mismatch' }, h('h3', {}, 'The first wrong element'),
    h('dl', {},
      h('dt', {}, 'Case'), h('dd', {}, sizesText(wrong.sizes)),
      h('dt', {}, 'Buffer'), h('dd', {}, h('code', {}, m.buffer)),
      h('dt', {}, 'Where'), h('dd', {}, where),
      h('dt', {}, 'Expected'), h('dd', {}, h('code', {}, String(m.expected))),
      h('dt', {}, 'Got'), h('dd', {}, h('code', {}, String(m.actual))),
      h('dt', {}, 'Wrong elements'), h('dd', {}, String(wrong.mismatches))),
    inputsTable(m));
}

// atLeast: the time is a lower bound (the run was stopped), drawn open-ended.
function bar(label, ms, scale, kind, atLeast = false) {
  const fill = h('span', { class: `bar-fill ${kind}${atLeast ? ' at-least' : ''}` });
  fill.style.width = `${Math.max(0.5, (100 * ms) / scale)}%`;
  return h('div', { class: 'bar-row' }, h('span', { class: 'bar-label' }, label),
    h('span', { class: 'bar-track' }, fill),
    h('span', { class: 'bar-value' }, `${atLeast ? '≥ ' : ''}${formatMs(ms)}`));
}

function timeSection(result) {
  const p = result.performance || {};
  if (typeof p.student_ms !== 'number' || typeof p.reference_ms !== 'number') return null;
  const limit = p.reference_ms * (p.max_ratio || 1);
  const scale = Math.max(p.student_ms, limit) * 1.08;
  const chart = h('div', { class: 'chart', role: 'img',
    'aria-label': `your kernel ${p.lower_bound ? 'at least ' : ''}${formatMs(p.student_ms)}, the reference ${formatMs(p.reference_ms)}, the bar ${formatMs(limit)}` },
  bar('Reference', p.reference_ms, scale, 'reference'),
  bar('Yours', p.student_ms, scale, p.passed ? 'fast' : 'slow', p.lower_bound));
  const marker = h('span', { class: 'bar-limit', title: `the bar: ${formatRatio(p.max_ratio)} the reference` });
  marker.style.left = `calc(var(--label-width) + (100% - var(--label-width) - var(--value-width)) * ${limit / scale})`;
  chart.append(marker);
  return h('section', { class: 'timing' }, h('h3', {}, 'Time'),
    chart,
    h('p', {}, `Time as a ratio to the reference's: ${p.lower_bound ? 'at least ' : ''}${formatRatio(p.ratio)}; the bar is ${formatRatio(p.max_ratio)}.`,
      p.lower_bound ? ' The run was stopped once it was sure to miss the bar: your kernel needs at least this long, and more had it gone on.' : '',
      p.estimated ? ' Modeled by the virtual GPU (deterministic).' : '',
      p.timing && p.timing.runs > 1 ? ` Medians of ${p.timing.runs} runs.` : ''));
}

function gpuSection(result, editor) {
  const faults = (result.diagnostics || []).map((d) => h('li', {}, d.kind ? `${d.kind}: ` : '', d.message, ' ',
    lineButton(d.line, editor)));
  const notes = counterNotes(result).map((c) => h('li', {}, c.text.replace(/, line \d+$/, ''), ', ',
    lineButton(c.line, editor)));
  const counters = (result.performance && result.performance.counters) || {};
  if (!faults.length && !notes.length && !counters.limiter) return null;
  return h('section', { class: 'gpu' }, h('h3', {}, 'What the GPU saw'),
    h('ul', {}, faults, notes,
      counters.partial ? h('li', {}, `Counted over the part that ran before the stop (${counters.partial.blocks_complete} of ${counters.partial.blocks_total} blocks finished, the stopped ones' work included).`) : null,
      counters.limiter ? h('li', {}, `The time is bound by ${counters.limiter}.`) : null,
      counters.registers_per_thread ? h('li', {}, `${counters.registers_per_thread} registers per thread, ${counters.blocks_per_sm} blocks per SM.`) : null));
}

// Whether a kernel ran: some case was run (a compile error, a rejected
// source or a grading that ended before its first case ran none).
export function kernelRan(result) {
  return ((result.correctness && result.correctness.cases) || []).length > 0;
}

// The device that ran the kernel; nothing where no kernel ran.
function deviceLine(result) {
  if (!kernelRan(result)) return null;
  const device = result.device || {};
  return h('p', { class: 'device' }, `On ${device.name || 'an unknown device'}`,
    device.emulated && !/emulated/.test(device.name || '') ? ' (emulated)' : '',
    device.emulated ? `: the virtual GPU ran ${result.form === 'host' ? 'the call\'s kernels and copies' : 'the kernel'} and modeled its time` : ': a real GPU',
    result.seed ? `; seed ${result.seed}` : '',
    result.assessment === false && !result.correctness_only ? '; not at the assessment size' : '');
}

// "Trial at n = 1,000,003 — not recorded; Submit to be graded".
export function trialLabel(sizes) {
  return `Trial at ${sizesText(sizes)} — not recorded; Submit to be graded`;
}

// The certificate a submission earned: its course's title and its link.
export function certificateNote(certificate) {
  if (!certificate || !certificate.id) return null;
  return h('p', { class: 'certificate-earned', role: 'status' },
    'You earned the certificate of ', h('strong', {}, certificate.course_title || certificate.course), ': ',
    link(`/certificates/${certificate.id}`, 'see your certificate'), '.');
}

// `extras`: {trial: the sizes of a trial (its label shown), certificate:
// the one the submission earned}.
export function renderResult(result, editor, extras = {}) {
  return h('div', { class: `result ${result.verdict}${extras.trial ? ' trial' : ''}` },
    extras.trial ? h('p', { class: 'trial-label' }, trialLabel(extras.trial)) : null,
    h('p', { class: 'verdict-line' }, verdictBadge(result.verdict), ' ', h('span', { class: 'message' }, result.message)),
    certificateNote(extras.certificate),
    compileSection(result, editor),
    mismatchSection(result),
    timeSection(result),
    gpuSection(result, editor),
    result.output ? h('section', {}, h('h3', {}, 'The kernel printed'), h('pre', { class: 'output' }, result.output)) : null,
    deviceLine(result));
}
