// Unit tests of what the instructors' confirmations say (web/static/
// regrade.js, revoke.js): how many submissions a regrade of an exercise
// queues again, in words that count ("1 submission", "12 submissions"),
// that old results are kept and a new one added, the queue when it holds
// any, and nothing offered when nothing is graded; a revocation names the
// student and the course.
//
//   node tests/web/test_instructor_tools.mjs

import { queuedAgainText, regradeQuestion } from '../../web/static/regrade.js';
import { revokeQuestion } from '../../web/static/revoke.js';

let passed = 0;
let failed = 0;

function check(name, condition, got) {
  if (condition) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}: "${got}"`);
  }
}

const twelve = regradeQuestion({ exercise: 'histogram', regradable: 12, queue_length: 3 });
check('says how many, of which exercise', twelve.startsWith('Regrade all 12 submissions of histogram?'), twelve);
check('says old results are kept and a new one added', twelve.includes('old results are kept') && twelve.includes('new result is added'), twelve);
check('says what the queue holds', twelve.includes('behind the 3 submissions waiting now'), twelve);
const one = regradeQuestion({ exercise: 'transpose', regradable: 1, queue_length: 1 });
check('one submission in the singular', one.startsWith('Regrade all 1 submission of transpose?') && one.includes('behind the 1 submission waiting'), one);
const idle = regradeQuestion({ exercise: 'transpose', regradable: 2, queue_length: 0 });
check('an empty queue is not mentioned as holding any', !idle.includes('waiting now') && idle.includes('grading queue'), idle);
const none = regradeQuestion({ exercise: 'transpose', regradable: 0, queue_length: 0 });
check('nothing graded: nothing to regrade', none.startsWith('No graded submission of transpose to regrade'), none);
check('the answer counts', queuedAgainText({ requeued: 12 }) === '12 submissions queued again.', queuedAgainText({ requeued: 12 }));
check('... in the singular too', queuedAgainText({ requeued: 1 }) === '1 submission queued again.', queuedAgainText({ requeued: 1 }));
const revoke = revokeQuestion('Sam Smith', 'Fundamentals of CUDA');
check('a revocation names the student and the course', revoke.startsWith('Revoke the certificate of Sam Smith for Fundamentals of CUDA?'), revoke);
check('... and says it is kept, marked revoked', revoke.includes('stays on record') && revoke.includes('REVOKED'), revoke);

console.log(`test_instructor_tools.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
