// Unit tests of the progress label (web/static/grading.js's progressText):
// it names the phase and the case — a correctness case with its number of
// the correctness cases (all of a trial's; all but the assessment run of a
// submission's), the assessment run, the sizes, whose run — and shows an
// estimate only when the event carries one.
//
//   node tests/web/test_progress.mjs

import { aboutSeconds, progressText } from '../../web/static/grading.js';

let passed = 0;
let failed = 0;

function check(name, got, want) {
  if (got === want) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
}

const assessment = { case: 4, cases: 4, stage: 'assessment', sizes: 'n = 100,000,000', what: 'assessment, n = 100,000,000' };
check('the assessment run, the reference, about 20 s',
  progressText('running', { ...assessment, step: 'reference', expected_seconds: 19.6 }),
  'Assessment run, n = 100,000,000: the reference, about 20 s');
check('no estimate without a basis', progressText('running', { ...assessment, step: 'student' }),
  'Assessment run, n = 100,000,000: your kernel');
check('a correctness case of a submission: of the cases before the assessment',
  progressText('running', { case: 2, cases: 4, stage: 'correctness', sizes: 'n = 1,000', step: 'student' }),
  'Correctness case 2 of 3, n = 1,000: your kernel');
check('a correctness case of a trial: of all its cases',
  progressText('running', { case: 1, cases: 1, stage: 'correctness', sizes: 'n = 100' }, { trial: true }),
  'Correctness case 1 of 1, n = 100');
check('checking names the case', progressText('checking', assessment),
  'Checking the outputs: Assessment run, n = 100,000,000');
check('queued with its position', progressText('position', { position: 3 }), 'Queued, position 3 in the queue');
check('compiling', progressText('compiling', {}), 'Compiling your kernel');
check('an event of an older server, without a stage',
  progressText('running', { case: 2, cases: 4, what: 'n = 1,000' }), 'case 2 of 4 (n = 1,000)');
check('a second', aboutSeconds(0.4), 'a second');
check('minutes', aboutSeconds(150), '3 min');

console.log(`test_progress.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
