// Following a grading: the event stream's phases as a progress bar
// (queued with its position, compiling, running case k of n with its sizes,
// whose run and about how long it takes, checking, timing), then the
// finished submission. Falls back to asking every two
// seconds when the stream cannot be kept open.

import { api } from './api.js';
import { fill, h } from './dom.js';

const PHASE_WORDS = {
  queued: 'Queued',
  position: 'Queued',
  compiling: 'Compiling',
  running: 'Running',
  checking: 'Checking',
  timing: 'Timing',
  done: 'Done',
};

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
function aboutSeconds(seconds) {
  if (seconds < 1) return 'a second';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  return `${Math.round(seconds / 60)} min`;
}

export function progressView() {
  const label = h('span', { class: 'progress-label' }, 'Submitted');
  const bar = h('progress', { max: 100, value: 0, 'aria-label': 'Grading progress' });
  const root = h('div', { class: 'progress', role: 'status', 'aria-live': 'polite' }, label, bar);
  return {
    root,
    show(phase, data = {}) {
      let text = PHASE_WORDS[phase] || phase;
      if (data.position) text += `, position ${data.position} in the queue`;
      if (data.case && data.cases && phase !== 'compiling') {
        text += `, case ${data.case} of ${data.cases}`;
        if (data.what) text += ` (${data.what})`;
      }
      if (data.step) text += `: ${data.step === 'reference' ? 'the reference' : 'your kernel'}`;
      if (typeof data.expected_seconds === 'number') text += `, about ${aboutSeconds(data.expected_seconds)}`;
      fill(label, text);
      bar.value = percentOf(phase, data);
    },
  };
}

// Follows submission `id`; resolves with the finished submission.
export function follow(id, progress) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = async () => {
      if (settled) return;
      settled = true;
      source.close();
      try {
        resolve(await waitDone(id, progress));
      } catch (e) {
        reject(e);
      }
    };
    const source = new EventSource(`/api/v1/submissions/${id}/events`);
    for (const phase of ['queued', 'position', 'compiling', 'running', 'checking', 'timing']) {
      source.addEventListener(phase, (event) => progress.show(phase, JSON.parse(event.data || '{}')));
    }
    source.addEventListener('done', finish);
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) finish(); };
  });
}

async function waitDone(id, progress) {
  for (;;) {
    const submission = await api('GET', `/api/v1/submissions/${id}`);
    if (submission.status === 'done') {
      progress.show('done');
      return submission;
    }
    if (submission.status === 'queued') progress.show('queued', { position: submission.queue_position });
    await new Promise((r) => setTimeout(r, 2000));
  }
}
