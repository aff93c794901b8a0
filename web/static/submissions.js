// My submissions: the history, per exercise, with each one's language,
// each re-openable with its source and its result (and every earlier
// result of a regraded one).

import { api } from './api.js';
import { requireUser } from './app.js';
import { lateMark, lateNote } from './dates.js';
import { fill, formatDate, h, link, table } from './dom.js';
import { formatMs, formatRatio } from './format.js';
import { follow, progressView } from './grading.js';
import { hiddenNotice } from './hidden.js';
import { submissionTools } from './instructor_tools.js';
import { languageLabel } from './languages.js';
import { renderResult, verdictBadge } from './result.js';

// The columns of submissionRows, for the tables that use it.
export const SUBMISSION_COLUMNS = ['Submission', 'Exercise', 'Language', 'Verdict', 'Time', 'Ratio', 'Submitted'];

export function submissionRows(submissions, extra) {
  return submissions.map((s) => h('tr', { class: s.hidden ? 'hidden-row' : null },
    h('td', {}, link(`/submissions/${s.id}`, `#${s.id}`)),
    h('td', {}, link(`/exercises/${s.exercise}`, s.exercise), hiddenNotice(s)),
    h('td', { class: 'language' }, languageLabel(s.language)),
    h('td', {}, s.status === 'done' ? verdictBadge(s.verdict) : s.status, s.late ? [' ', lateMark()] : null),
    h('td', {}, formatMs(s.student_ms)),
    h('td', {}, formatRatio(s.ratio)),
    h('td', {}, formatDate(s.created_at)),
    extra ? h('td', {}, extra(s)) : null));
}

export async function showSubmissions(session) {
  if (!requireUser()) return;
  const { submissions } = await api('GET', '/api/v1/submissions');
  const exercises = [...new Set(submissions.map((s) => s.exercise))].sort();
  const body = h('div');
  const choose = h('select', { id: 'filter-exercise', onchange: draw },
    h('option', { value: '' }, 'every exercise'), exercises.map((e) => h('option', { value: e }, e)));
  function draw() {
    const shown = submissions.filter((s) => !choose.value || s.exercise === choose.value);
    fill(body, shown.length
      ? table(SUBMISSION_COLUMNS, submissionRows(shown))
      : h('p', {}, 'No submissions yet: pick an exercise and submit a kernel.'));
  }
  fill(document.getElementById('main'), h('h1', {}, 'My submissions'),
    h('p', {}, h('label', { for: 'filter-exercise' }, 'Show '), choose), body);
  draw();
  void session;
}

function sourceView(source) {
  const lines = (source || '').split('\n');
  return h('pre', { class: 'source' }, lines.map((line, i) => h('span', { class: 'source-line', id: `L${i + 1}` },
    h('span', { class: 'line-number', 'aria-hidden': 'true' }, String(i + 1)), line, '\n')));
}

// Scrolls the source view to a line, as the result's line buttons ask.
function sourceNavigator() {
  return { goTo(line) { const el = document.getElementById(`L${line}`); if (el) el.scrollIntoView({ block: 'center' }); } };
}

export async function showSubmission(session, id) {
  if (!requireUser()) return;
  let submission = await api('GET', `/api/v1/submissions/${id}`);
  const resultBox = h('div');
  fill(document.getElementById('main'),
    h('h1', {}, `Submission ${submission.id}`),
    h('p', { class: 'meta' }, link(`/exercises/${submission.exercise}`, submission.exercise),
      ` in ${languageLabel(submission.language)} by ${submission.user}, `, formatDate(submission.created_at)),
    hiddenNotice(submission),
    lateNote(submission),
    submissionTools(session, submission, () => showSubmission(session, id)),
    resultBox,
    h('h2', {}, 'Source'), sourceView(submission.source),
    (submission.results || []).length > 1 ? h('section', {}, h('h2', {}, 'Earlier results'),
      h('ul', {}, submission.results.slice(0, -1).map((r) => h('li', {}, verdictBadge(r.verdict), ' ',
        formatDate(r.created_at))))) : null);
  if (submission.status !== 'done') {
    const progress = progressView();
    fill(resultBox, progress.root);
    submission = await follow(submission.id, progress);
  }
  if (submission.result) fill(resultBox, renderResult(submission.result, sourceNavigator(), { certificate: submission.certificate }));
  void session;
}
