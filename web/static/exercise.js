// The exercise page: the statement (Markdown the server rendered in
// cmark's safe mode), the language switch (CUDA C / Numba Python, where
// the exercise takes both; the choice remembered per user), what the
// kernel must be in that language, the editor with the starter or the
// student's last source in that language (what was typed in the other is
// kept while the page is open), Submit, the grading's progress, and the
// result with its marks in the editor.

import { api } from './api.js';
import { notice, refreshSession } from './app.js';
import { datesNote, lateNote } from './dates.js';
import { fill, h, link } from './dom.js';
import { formatRatio } from './format.js';
import { follow, progressView } from './grading.js';
import {
  formsOf, initialLanguage, languageLabel, languagesOf, LANGUAGES, newestByLanguage,
  rememberedLanguage, rememberLanguage, starterFor,
} from './languages.js';
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

// The student's submissions of the exercise: the newest of all, and the
// newest in each language with its source ({newest, byLanguage}).
async function lastSubmissions(session, id) {
  if (!session.user) return { newest: null, byLanguage: {} };
  const list = await api('GET', `/api/v1/submissions?exercise=${encodeURIComponent(id)}`);
  const newest = newestByLanguage(list.submissions);
  const full = await Promise.all(Object.values(newest).map((s) => api('GET', `/api/v1/submissions/${s.id}`)));
  const byLanguage = {};
  for (const s of full) byLanguage[s.language || 'cuda'] = s;
  return { newest: full.find((s) => list.submissions[0] && s.id === list.submissions[0].id) || null, byLanguage };
}

function storage() {
  try {
    return window.localStorage;
  } catch (e) {
    return null;
  }
}

// The radio buttons of the languages an exercise takes; none when it takes one.
function languageSwitch(taken, current, onChange) {
  if (taken.length < 2) return null;
  return h('fieldset', { class: 'language-switch' },
    h('legend', {}, 'Language'),
    LANGUAGES.filter((l) => taken.includes(l.id)).map((l) => h('label', {},
      h('input', { type: 'radio', name: 'language', value: l.id, checked: l.id === current,
        onchange: (event) => { if (event.target.checked) onChange(l.id); } }),
      ` ${l.label}`)));
}

// What the kernel must be in `language`: its signature or its Numba form.
function formsView(box, exercise, language) {
  const forms = formsOf(exercise, language);
  fill(box, forms.length ? h('p', {}, language === 'numba' ? 'Define, with @cuda.jit: ' : 'Define: ',
    forms.map((f, i) => [i ? '; ' : '', h('code', {}, f.code),
      f.types ? [', compiled for ', h('code', {}, f.types)] : ''])) : null);
  box.dataset.language = language;
}

export async function showExercise(session, id) {
  const [exercise, last, editorModule] = await Promise.all([
    api('GET', `/api/v1/exercises/${encodeURIComponent(id)}?lang=${preferredLanguage()}`),
    lastSubmissions(session, id),
    loadEditor(),
  ]);
  const userName = session.user ? session.user.name : '';
  const taken = languagesOf(exercise);
  let language = initialLanguage(exercise, rememberedLanguage(storage(), userName), last.newest);
  // Each language's text: the last submitted, else the starter; then what is typed.
  const texts = {};
  for (const l of taken) texts[l] = last.byLanguage[l] ? last.byLanguage[l].source : starterFor(exercise, l);

  const resultBox = h('div', { class: 'result-box', 'aria-live': 'polite' });
  const progressBox = h('div', { class: 'progress-box' });
  const formsBox = h('div', { class: 'kernel-forms' });
  const submitButton = h('button', { type: 'button', class: 'primary', onclick: submit }, 'Submit');
  const resetButton = h('button', { type: 'button', onclick: () => editor.setText(starterFor(exercise, language)) },
    'Back to the starter');
  const editorBox = h('div', { class: 'editor-box' });
  const sizes = Object.entries(exercise.sizes || {}).map(([k, v]) => `${k} = ${Number(v).toLocaleString('en')}`).join(', ');

  fill(document.getElementById('main'),
    h('h1', {}, exercise.title || exercise.id,
      exercise.assessment ? h('span', { class: 'badge assessment' }, 'assessment') : null),
    h('p', { class: 'meta' }, `Graded at ${sizes}; to pass, correct and at most ${formatRatio(exercise.max_ratio)} the reference's time. `,
      link(`/scoreboard/${exercise.id}`, 'Scoreboard'), ' ', datesNote(exercise)),
    h('div', { class: 'exercise-layout' },
      statementOf(exercise),
      h('div', { class: 'work' },
        h('h2', {}, 'Your kernel'),
        languageSwitch(taken, language, switchTo),
        formsBox,
        editorBox,
        h('div', { class: 'actions' }, submitButton, resetButton,
          session.user ? h('span', { class: 'hint' }, 'Ctrl+Enter submits') : h('span', { class: 'hint' }, link(`/login?next=/exercises/${exercise.id}`, 'Log in'), ' to submit')),
        progressBox,
        resultBox)));

  const editor = editorModule.mount(editorBox, texts[language], { onSubmit: submit, language });
  editorBox.dataset.language = language;
  formsView(formsBox, exercise, language);
  submitButton.disabled = !session.user;

  // Another language: the text typed so far kept, the other's shown with
  // its highlighting, its form and its last result.
  function switchTo(next) {
    if (next === language) return;
    texts[language] = editor.getText();
    language = next;
    rememberLanguage(storage(), userName, language);
    editor.setLanguage(language);
    editor.setText(texts[language]);
    editorBox.dataset.language = language;
    formsView(formsBox, exercise, language);
    editor.setMarks([]);
    fill(resultBox);
    const shown = last.byLanguage[language];
    if (shown && shown.status === 'done') show(shown);
  }

  // A graded submission: its result, and its marks when the editor holds
  // its language (a result in the other language waits for the switch).
  function show(submission) {
    if (!submission.result) return;
    const its = submission.language || 'cuda';
    last.byLanguage[its] = submission;
    if (its !== language) return;
    fill(resultBox, h('h2', {}, 'Result'), lateNote(submission), renderResult(submission.result, editor),
      h('p', {}, link(`/submissions/${submission.id}`, `Submission ${submission.id}`),
        taken.length > 1 ? `, in ${languageLabel(its)}` : ''));
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
      const answer = await api('POST', '/api/v1/submissions',
        { exercise: exercise.id, source: editor.getText(), language },
        { headers: { 'Idempotency-Key': randomKey() } });
      await track(answer.id);
    } catch (e) {
      fill(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
      submitButton.disabled = false;
    }
  }

  if (last.newest && last.newest.status !== 'done') track(last.newest.id);
  const shown = last.byLanguage[language];
  if (shown && shown.status === 'done') show(shown);
}
