// Unit tests of the pages' dates (web/static/dates.js) and the gradebook's
// filters (web/static/gradebook.js): a datetime-local value goes to the
// API in UTC and back to the same wall clock in any zone; "opens"/"due"/
// "closed" follow the time; the filters keep who and what they should.
//
//   node tests/web/test_dates.mjs

import { datesWords, fromLocalInput, toLocalInput } from '../../web/static/dates.js';
import { filterGradebook } from '../../web/static/gradebook.js';

let passed = 0;
let failed = 0;
function check(name, got, want) {
  const same = JSON.stringify(got) === JSON.stringify(want);
  if (same) passed++;
  else failed++;
  console.log(`${same ? 'ok  ' : 'FAIL'} ${name}${same ? '' : `: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`}`);
}

for (const zone of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata']) {
  process.env.TZ = zone;
  const iso = fromLocalInput('2026-12-15T23:59');
  check(`${zone}: a local time round-trips through UTC`, toLocalInput(iso), '2026-12-15T23:59');
  check(`${zone}: what the API gets is UTC`, iso.endsWith('Z'), true);
}
process.env.TZ = 'Europe/Paris';
check('Paris in winter is UTC+1', fromLocalInput('2026-12-15T23:59'), '2026-12-15T22:59:00.000Z');
check('an empty input is no time', fromLocalInput(''), null);
check('a bad input is undefined', fromLocalInput('not a time'), undefined);
check('no time is an empty input', toLocalInput(null), '');

const now = Date.parse('2026-11-24T12:00:00Z');
check('before the opening: opens and due', datesWords({ opens: '2026-12-01T00:00:00Z', deadline: '2027-01-01T00:00:00Z' }, now).map((w) => w.split(' ')[0]), ['opens', 'due']);
check('open: due only', datesWords({ opens: '2026-01-01T00:00:00Z', deadline: '2027-01-01T00:00:00Z' }, now).map((w) => w.split(' ')[0]), ['due']);
check('after the deadline: closed', datesWords({ opens: null, deadline: '2026-11-01T00:00:00Z' }, now).map((w) => w.split(' ')[0]), ['closed']);
check('no dates: nothing', datesWords({}, now), []);

const book = {
  exercises: [{ id: 'a', assessment: false }, { id: 'b', assessment: true }, { id: 'c', assessment: true }],
  students: [
    { name: 'ann', display_name: 'Ann Lee', assessments_passed: 2, cells: {} },
    { name: 'bob', display_name: 'Bob', assessments_passed: 1, cells: {} },
    { name: 'nora', display_name: 'Nora', assessments_passed: 0, cells: {} },
  ],
};
const names = (shown) => shown.students.map((s) => s.name);
check('no filter keeps everyone', names(filterGradebook(book)), ['ann', 'bob', 'nora']);
check('the search matches display names, any case', names(filterGradebook(book, { search: 'lee' })), ['ann']);
check('the search matches logins', names(filterGradebook(book, { search: 'NO' })), ['nora']);
check('who has not passed every assessment', names(filterGradebook(book, { unfinished: true })), ['bob', 'nora']);
check('only the assessments', filterGradebook(book, { onlyAssessments: true }).exercises.map((e) => e.id), ['b', 'c']);

console.log(`test_dates.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
