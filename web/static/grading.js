// Following a grading (a submission's, or a trial's): the event stream's
// phases as a progress bar whose label names the phase and the case — "Queued,
// position 2 in the queue", "Compiling your kernel", "Correctness case 2 of 3,
// n = 1,000: your kernel", "Assessment run, n = 100,000,000: the reference,
// about 20 s", "Checking the outputs at n = 100,000,000" — then the finished
// submission or trial. The estimate is the grader's, from the reference's speed
// measured in this grading (events' expected_seconds); without one, none is
// shown. Falls back to asking every two seconds when the stream cannot be kept
// open.

import { api } from './api.js';
import { fill, h } from './dom.js';

function percentOf(phase, data) {
  const done = data.case && data.cases ? (data.case - (phase === 'running' ? 1 : 0)) / data.cases : 0;
  switch (phase) {
    case 'queued': case 'position': return 5;
    case 'compiling': return 15;
    case 'running': case 'checking': return 25 + 55 * done;
    case 'timing': return 85;
    case 'done': return 100;
    default: return 0;
  }
}

// "about 12 s", "about 2 min": how long a run is expected to take.
export function aboutSeconds(seconds) {
  if (seconds < 1) return 'a second';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  return `${Math.round(seconds / 60)} min`;
}

// The case of an event: "Assessment run, n = 100,000,000" or "Correctness
// case 2 of 3, n = 1,000" (`correctnessCases`: how many there are; the
// assessment run, when there is one, is the last case). Older events
// without a stage: "case 2 of 4 (n = 1,000)".
function caseText(data, correctnessCases) {
  const sizes = data.sizes || data.what || '';
  if (data.stage === 'assessment') return `Assessment run, ${sizes}`;
  if (data.stage === 'correctness') {
    const of = correctnessCases(data.cases);
    return `Correctness case ${data.case}${of ? ` of ${of}` : ''}, ${sizes}`;
  }
  return `case ${data.case} of ${data.cases}${data.what ? ` (${data.what})` : ''}`;
}

// The progress label of an event (`trial`: no assessment run follows the
// correctness cases).
export function progressText(phase, data = {}, { trial = false } = {}) {
  const correctnessCases = (cases) => (trial ? cases : cases - 1);
  const hasCase = data.case && data.cases;
  switch (phase) {
    case 'queued': case 'position':
      return data.position ? `Queued, position ${data.position} in the queue` : 'Queued';
    case 'compiling': return 'Compiling your kernel';
    case 'running': {
      if (!hasCase) return 'Running';
      let text = caseText(data, correctnessCases);
      if (data.step) text += `: ${data.step === 'reference' ? 'the reference' : 'your kernel'}`;
      if (typeof data.expected_seconds === 'number') text += `, about ${aboutSeconds(data.expected_seconds)}`;
      return text;
    }
    case 'checking':
      return hasCase ? `Checking the outputs: ${caseText(data, correctnessCases)}` : 'Checking the outputs';
    case 'timing': return hasCase ? `Timing: ${caseText(data, correctnessCases)}` : 'Timing';
    case 'done': return 'Done';
    default: return phase;
  }
}

// `trial`: the grading is a trial's (its cases are correctness cases only).
export function progressView({ trial = false } = {}) {
  const label = h('span', { class: 'progress-label' }, trial ? 'Trial queued' : 'Submitted');
  const bar = h('progress', { max: 100, value: 0, 'aria-label': 'Grading progress' });
  const root = h('div', { class: 'progress', role: 'status', 'aria-live': 'polite' }, label, bar);
  return {
    root,
    show(phase, data = {}) {
      fill(label, progressText(phase, data, { trial }));
      bar.value = percentOf(phase, data);
    },
  };
}

// Follows submission (or, with kind 'trials', trial) `id`; resolves with it
// finished.
export function follow(id, progress, { kind = 'submissions' } = {}) {
  const url = `/api/v1/${kind}/${id}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = async () => {
      if (settled) return;
      settled = true;
      source.close();
      try {
        resolve(await waitDone(url, progress));
      } catch (e) {
        reject(e);
      }
    };
    const source = new EventSource(`${url}/events`);
    for (const phase of ['queued', 'position', 'compiling', 'running', 'checking', 'timing']) {
      source.addEventListener(phase, (event) => progress.show(phase, JSON.parse(event.data || '{}')));
    }
    source.addEventListener('done', finish);
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) finish(); };
  });
}

async function waitDone(url, progress) {
  for (;;) {
    const graded = await api('GET', url);
    if (graded.status === 'done') {
      progress.show('done');
      return graded;
    }
    if (graded.status === 'queued') progress.show('queued', { position: graded.queue_position });
    await new Promise((r) => setTimeout(r, 2000));
  }
}
