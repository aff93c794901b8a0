// The exercise page: the statement (Markdown the server rendered in
// cmark's safe mode) in a disclosure whose summary is the title (said
// once: the statement's own first heading is dropped), open on a wide
// screen and closed on a narrow one so that the editor comes first there;
// the language switch (CUDA C / Numba Python, where the exercise takes both;
// the choice remembered per user), what the kernel must be in that language
// (wrapped, never clipped), the editor (resizable) with the starter or the
// student's last source in that language (what was typed in the other is
// kept while the page is open), Submit, "Try at small n" (a trial: graded at
// the largest correctness size, not recorded), the grading's progress, and
// the result with its marks in the editor.

import { api } from './api.js';
import { notice, refreshSession } from './app.js';
import { datesNote, lateNote } from './dates.js';
import { fill, h, link } from './dom.js';
import { formatRatio } from './format.js';
import { follow, progressView } from './grading.js';
import {
  formsOf, hostFormOf, initialLanguage, languageLabel, languagesOf, LANGUAGES, newestByLanguage,
  rememberedLanguage, rememberLanguage, starterFor,
} from './languages.js';
import { marksOf, renderResult, sizesText } from './result.js';

// Narrower than this, the statement starts closed (style.css's one-column
// layout begins at the same width).
const NARROW = '(max-width: 900px)';

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

// The statement, and its title: its own first heading, taken out of it
// (in the statement's language), else the exercise's title.
function statementOf(exercise) {
  const lang = exercise.language || 'en';
  const statement = h('div', { class: 'statement', lang });
  if (exercise.statement_html) statement.innerHTML = exercise.statement_html; // cmark, safe mode
  else statement.append(h('pre', {}, exercise.statement || 'This exercise has no statement.'));
  const first = statement.firstElementChild;
  if (first && first.tagName === 'H1' && first.textContent.trim()) {
    first.remove();
    return { statement, title: first.textContent.trim(), lang };
  }
  return { statement, title: exercise.title || exercise.id, lang: null };
}

// The statement in a disclosure whose summary is the title (and the
// assessment badge), with what the grading asks; closed on a narrow screen.
function statementBox(exercise, meta) {
  const narrow = window.matchMedia && window.matchMedia(NARROW).matches;
  const { statement, title, lang } = statementOf(exercise);
  return h('details', { class: 'statement-box', open: !narrow },
    h('summary', {}, h('h1', { lang }, title,
      exercise.assessment ? h('span', { class: 'badge assessment' }, 'assessment') : null)),
    meta,
    statement);
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

// What the kernel must be in `language`: its signature or its Numba form,
// and, where the exercise has one, the course's host form instead.
function formsView(box, exercise, language) {
  const forms = formsOf(exercise, language);
  const host = hostFormOf(exercise, language);
  fill(box, forms.length ? h('p', {}, language === 'numba' ? 'Define, with @cuda.jit: ' : 'Define: ',
    forms.map((f, i) => [i ? '; ' : '', h('code', {}, f.code),
      f.types ? [', compiled for ', h('code', {}, f.types)] : ''])) : null,
  host ? h('p', { class: 'host-form' }, 'Or, in the course\'s form: ', h('code', {}, host.code),
    `, returning ${host.returns} as a host array (see the statement's "The course's form")`) : null);
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
  const trialSizes = sizesText(exercise.trial_sizes);
  const tryButton = h('button', { type: 'button', class: 'try', onclick: tryIt,
    title: trialSizes ? `Grades your kernel at ${trialSizes} without recording it` : null }, 'Try at small n');
  const resetButton = h('button', { type: 'button', onclick: () => editor.setText(starterFor(exercise, language)) },
    'Back to the starter');
  const editorBox = h('div', { class: 'editor-box' });
  const sizes = Object.entries(exercise.sizes || {}).map(([k, v]) => `${k} = ${Number(v).toLocaleString('en')}`).join(', ');

  const meta = h('p', { class: 'meta' }, `Graded at ${sizes}; to pass, correct and at most ${formatRatio(exercise.max_ratio)} the reference's time. `,
    link(`/scoreboard/${exercise.id}`, 'Scoreboard'), ' ', datesNote(exercise));

  fill(document.getElementById('main'),
    h('div', { class: 'exercise-layout' },
      statementBox(exercise, meta),
      h('div', { class: 'work' },
        h('h2', {}, 'Your kernel'),
        languageSwitch(taken, language, switchTo),
        formsBox,
        editorBox,
        h('div', { class: 'actions' }, submitButton, tryButton, resetButton,
          session.user ? h('span', { class: 'hint' }, 'Ctrl+Enter submits') : h('span', { class: 'hint' }, link(`/login?next=/exercises/${exercise.id}`, 'Log in'), ' to submit')),
        progressBox,
        resultBox)));

  const editor = editorModule.mount(editorBox, texts[language], { onSubmit: submit, language });
  editorBox.dataset.language = language;
  formsView(formsBox, exercise, language);
  submitButton.disabled = !session.user;
  tryButton.disabled = !session.user;

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
    fill(resultBox, h('h2', {}, 'Result'), lateNote(submission),
      renderResult(submission.result, editor, { certificate: submission.certificate }),
      h('p', {}, link(`/submissions/${submission.id}`, `Submission ${submission.id}`),
        taken.length > 1 ? `, in ${languageLabel(its)}` : ''));
    editor.setMarks(marksOf(submission.result));
  }

  // A finished trial: its result under its label, its marks in the editor
  // (when the editor still holds its language); nothing kept.
  function showTrial(trial, its) {
    if (!trial.result || its !== language) return;
    fill(resultBox, h('h2', {}, 'Trial'), renderResult(trial.result, editor, { trial: exercise.trial_sizes }));
    editor.setMarks(marksOf(trial.result));
  }

  function enableButtons() {
    submitButton.disabled = !session.user;
    tryButton.disabled = !session.user;
  }

  // Follows a submission or (`trial`) a trial to its result.
  async function track(id, { trial = false, its = language } = {}) {
    const progress = progressView({ trial });
    fill(progressBox, progress.root);
    progress.show('queued');
    try {
      const graded = await follow(id, progress, { kind: trial ? 'trials' : 'submissions' });
      if (trial) showTrial(graded, its);
      else show(graded);
      if (!trial) await refreshSession();
    } catch (e) {
      fill(resultBox, h('p', { class: 'error' }, e.message));
    } finally {
      enableButtons();
    }
  }

  // Sends the editor's kernel as a submission or (`trial`) a trial.
  async function send({ trial = false } = {}) {
    if (!session.user || submitButton.disabled) return;
    submitButton.disabled = true;
    tryButton.disabled = true;
    fill(resultBox);
    editor.setMarks([]);
    notice('');
    const its = language;
    try {
      const answer = trial
        ? await api('POST', '/api/v1/trials', { exercise: exercise.id, source: editor.getText(), language })
        : await api('POST', '/api/v1/submissions',
          { exercise: exercise.id, source: editor.getText(), language },
          { headers: { 'Idempotency-Key': randomKey() } });
      await track(answer.id, { trial, its });
    } catch (e) {
      fill(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
      enableButtons();
    }
  }

  function submit() {
    return send();
  }

  function tryIt() {
    return send({ trial: true });
  }

  if (last.newest && last.newest.status !== 'done') track(last.newest.id);
  const shown = last.byLanguage[language];
  if (shown && shown.status === 'done') show(shown);
}
