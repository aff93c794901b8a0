// The exercise page: the statement (Markdown the server rendered in
// cmark's safe mode), the editor with the starter or the student's last
// source, Submit, the grading's progress, and the result with its marks
// in the editor.

import { api } from './api.js';
import { notice, refreshSession } from './app.js';
import { fill, h, link } from './dom.js';
import { formatRatio } from './format.js';
import { follow, progressView } from './grading.js';
import { marksOf, renderResult } from './result.js';

// The CodeMirror editor when its bundle was built, else the text area.
async function loadEditor() {
  try {
    return await import('/static/editor.js');
  } catch (e) {
    return import('./editor_plain.js');
  }
}

// The statement's language: the browser's first preference among those
// kgrade's statements come in (English otherwise).
const STATEMENT_LANGUAGES = ['en', 'fr'];
function preferredLanguage() {
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const code = tag.slice(0, 2).toLowerCase();
    if (STATEMENT_LANGUAGES.includes(code)) return code;
  }
  return 'en';
}

// A fresh Idempotency-Key (crypto.randomUUID needs HTTPS; this does not).
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function statementOf(exercise) {
  const statement = h('div', { class: 'statement', lang: exercise.language || 'en' });
  if (exercise.statement_html) statement.innerHTML = exercise.statement_html; // cmark, safe mode
  else statement.append(h('pre', {}, exercise.statement || 'This exercise has no statement.'));
  return statement;
}

async function lastSubmission(session, id) {
  if (!session.user) return null;
  const list = await api('GET', `/api/v1/submissions?exercise=${encodeURIComponent(id)}`);
  const newest = list.submissions[0];
  return newest ? api('GET', `/api/v1/submissions/${newest.id}`) : null;
}

export async function showExercise(session, id) {
  const [exercise, last, editorModule] = await Promise.all([
    api('GET', `/api/v1/exercises/${encodeURIComponent(id)}?lang=${preferredLanguage()}`),
    lastSubmission(session, id),
    loadEditor(),
  ]);
  const resultBox = h('div', { class: 'result-box', 'aria-live': 'polite' });
  const progressBox = h('div', { class: 'progress-box' });
  const submitButton = h('button', { type: 'button', class: 'primary', onclick: submit }, 'Submit');
  const resetButton = h('button', { type: 'button', onclick: () => editor.setText(exercise.starter || '') },
    'Back to the starter');
  const editorBox = h('div', { class: 'editor-box' });
  const sizes = Object.entries(exercise.sizes || {}).map(([k, v]) => `${k} = ${Number(v).toLocaleString('en')}`).join(', ');

  fill(document.getElementById('main'),
    h('h1', {}, exercise.title || exercise.id,
      exercise.assessment ? h('span', { class: 'badge assessment' }, 'assessment') : null),
    h('p', { class: 'meta' }, `Graded at ${sizes}; to pass, correct and at most ${formatRatio(exercise.max_ratio)} the reference's time. `,
      link(`/scoreboard/${exercise.id}`, 'Scoreboard')),
    h('div', { class: 'exercise-layout' },
      statementOf(exercise),
      h('div', { class: 'work' },
        h('h2', {}, 'Your kernel'),
        editorBox,
        h('div', { class: 'actions' }, submitButton, resetButton,
          session.user ? h('span', { class: 'hint' }, 'Ctrl+Enter submits') : h('span', { class: 'hint' }, link(`/login?next=/exercises/${exercise.id}`, 'Log in'), ' to submit')),
        progressBox,
        resultBox)));

  const editor = editorModule.mount(editorBox, last ? last.source : exercise.starter || '', { onSubmit: submit });
  submitButton.disabled = !session.user;

  function show(submission) {
    if (!submission.result) return;
    fill(resultBox, h('h2', {}, 'Result'), renderResult(submission.result, editor),
      h('p', {}, link(`/submissions/${submission.id}`, `Submission ${submission.id}`)));
    editor.setMarks(marksOf(submission.result));
  }

  async function track(id) {
    const progress = progressView();
    fill(progressBox, progress.root);
    progress.show('queued');
    try {
      const submission = await follow(id, progress);
      show(submission);
      await refreshSession();
    } catch (e) {
      fill(resultBox, h('p', { class: 'error' }, e.message));
    } finally {
      submitButton.disabled = !session.user;
    }
  }

  async function submit() {
    if (!session.user || submitButton.disabled) return;
    submitButton.disabled = true;
    fill(resultBox);
    editor.setMarks([]);
    notice('');
    try {
      const answer = await api('POST', '/api/v1/submissions', { exercise: exercise.id, source: editor.getText() },
        { headers: { 'Idempotency-Key': randomKey() } });
      await track(answer.id);
    } catch (e) {
      fill(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
      submitButton.disabled = false;
    }
  }

  if (last && last.status !== 'done') track(last.id);
  else if (last) show(last);
}
