// Browser tests of the instructors' tools (the harness: harness.mjs): from
// the Class page's tool block, an instructor regrades one submission and
// then every submission of an exercise (the confirmation says how many,
// that old results are kept and a new one added, and the queue; the answer
// says how many were queued again), hides a submission with a reason asked
// in a form of the page (no dialog), which its student reads on their
// submission's page and in their list; the audit log page lists these
// actions, newest first, times in the viewer's time zone, and filters
// them; the certificates page lists the certificate a student earned (the
// test course's two tiny assessments) with a link to it, where Revoke is a
// danger action, not the primary button, that asks first, naming the
// student and the course. No page may log an error or open a dialog.
//
//   node tests/browser/instructor.mjs BUILD

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addStudent, base, check, data, expect, kernels, kgrade, login, run, runBrowserTests, shot,
} from './harness.mjs';

const REASON = 'the same kernel as ben\'s, character for character';
const TIME_ZONE = 'Asia/Tokyo'; // never UTC's: a time in UTC would show

// A student's submission through the API; its id.
async function submitByApi(token, exercise, file) {
  const body = JSON.stringify({ exercise, source: readFileSync(file, 'utf8') });
  const { stdout } = await run('curl', ['-s', '-H', `Authorization: Bearer ${token}`, '-H', 'Content-Type: application/json',
    '--data-binary', body, `${base}/api/v1/submissions`]);
  return JSON.parse(stdout).id;
}

async function submission(token, id) {
  const { stdout } = await run('curl', ['-s', '-H', `Authorization: Bearer ${token}`, `${base}/api/v1/submissions/${id}`]);
  return JSON.parse(stdout);
}

// Waits until the submission is graded (with `results` results, when given).
async function graded(token, id, results = 1) {
  for (let i = 0; i < 1200; i++) {
    const s = await submission(token, id);
    if (s.status === 'done' && s.results.length >= results) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`submission ${id} was not graded`);
}

async function tokenOf(name) {
  const { stdout } = await run(kgrade, ['--db', join(data, 'kgrade.db'), 'token', 'create', name]);
  return stdout.trim();
}

// The admin's first login, with a password of their own.
async function adminLogsIn(page, admin) {
  await login(page, 'admin', admin, { landing: 'Change your password' });
  await page.getByLabel('Current password').fill(admin);
  await page.getByLabel('New password', { exact: true }).fill('admin-password-2');
  await page.getByLabel('New password, again').fill('admin-password-2');
  await page.getByRole('button', { name: 'Change the password' }).click();
  await page.getByRole('heading', { name: 'Exercises' }).waitFor();
}

async function instructorJourney(browser, admin) {
  const problems = [];
  const teacher = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: TIME_ZONE, locale: 'en-US' });
  const tpage = await teacher.newPage();
  const student = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const spage = await student.newPage();
  for (const p of [tpage, spage]) {
    p.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    p.on('pageerror', (e) => problems.push(e.message));
    p.on('dialog', async (d) => { problems.push(`a dialog opened: ${d.message()}`); await d.dismiss(); });
  }

  await addStudent('ada', 'ada-password');
  await addStudent('ben', 'ben-password');
  const ada = await tokenOf('ada');
  const ben = await tokenOf('ben');
  const adaAdd = await submitByApi(ada, 'tiny-add', `${kernels}/good.cu`);
  const benAdd = await submitByApi(ben, 'tiny-add', `${kernels}/good.cu`);
  const adaTwice = await submitByApi(ada, 'tiny-add-twice', `${kernels}/good.cu`);
  for (const [token, id] of [[ada, adaAdd], [ben, benAdd], [ada, adaTwice]]) await graded(token, id);

  await check('the Class page links the audit log and the certificates, and offers an exercise\'s regrade', async () => {
    await adminLogsIn(tpage, admin);
    await tpage.getByRole('link', { name: 'Class' }).click();
    const tools = tpage.getByRole('navigation', { name: 'Instructor tools' });
    await tools.getByRole('link', { name: 'Audit log' }).waitFor();
    await tools.getByRole('link', { name: 'Certificates' }).waitFor();
    await tools.getByText('Regrade an exercise').waitFor();
    await shot(tpage, 'instructor-tools');
  });
  await check('an instructor regrades one submission from a student\'s page and sees the answer', async () => {
    await tpage.goto(`${base}/instructor/students/ada`);
    const row = tpage.locator('tr', { has: tpage.getByRole('link', { name: `#${adaAdd}`, exact: true }) });
    await row.getByRole('button', { name: 'Regrade' }).click();
    await tpage.getByText(new RegExp(`Submission ${adaAdd} queued again \\(place \\d+\\); its old results are kept\\.`)).waitFor();
    expect((await graded(ada, adaAdd, 2)).results.length === 2, 'a new result beside the old');
  });
  await check('... and from the submission\'s page', async () => {
    await tpage.goto(`${base}/submissions/${benAdd}`);
    await tpage.locator('.result .verdict.passed').waitFor();
    await tpage.getByRole('button', { name: 'Regrade' }).click();
    await tpage.getByText(new RegExp(`Submission ${benAdd} queued again`)).waitFor();
    await graded(ben, benAdd, 2);
  });
  await check('an instructor regrades every submission of an exercise after a confirmation that says what happens', async () => {
    await tpage.getByRole('link', { name: 'Class' }).click();
    await tpage.getByText('Regrade an exercise').click();
    await tpage.getByLabel('Exercise').selectOption('tiny-add');
    await tpage.getByRole('button', { name: 'Regrade all submissions of this exercise…' }).click();
    const confirm = tpage.getByRole('alertdialog', { name: 'Regrade tiny-add' });
    const text = await confirm.textContent();
    expect(text.includes('Regrade all 2 submissions of tiny-add?'), `how many: ${text}`);
    expect(text.includes('old results are kept') && text.includes('new result is added'), `what happens: ${text}`);
    expect(text.includes('grading queue'), `the queue: ${text}`);
    await shot(tpage, 'instructor-regrade-confirm');
    await confirm.getByRole('button', { name: 'Regrade 2 submissions' }).click();
    await tpage.getByRole('status').filter({ hasText: '2 submissions queued again.' }).waitFor();
    await graded(ada, adaAdd, 3);
    await graded(ben, benAdd, 3);
  });
  await check('Cancel leaves everything as it was', async () => {
    await tpage.getByRole('button', { name: 'Regrade all submissions of this exercise…' }).click();
    await tpage.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await tpage.getByRole('alertdialog').count() === 0, 'the question is gone');
    expect((await submission(ada, adaAdd)).results.length === 3, 'nothing regraded');
  });
  await check('an instructor hides a submission with a reason asked in the page', async () => {
    await tpage.goto(`${base}/instructor/students/ada`);
    const row = tpage.locator('tr', { has: tpage.getByRole('link', { name: `#${adaAdd}`, exact: true }) });
    await row.getByRole('button', { name: 'Hide…' }).click();
    await row.getByLabel('Reason (the student reads it)').fill(REASON);
    await shot(tpage, 'instructor-hide-reason');
    await row.getByRole('button', { name: 'Hide from the scoreboard' }).click();
    await tpage.locator('tr', { has: tpage.getByRole('link', { name: `#${adaAdd}`, exact: true }) })
      .getByRole('button', { name: 'Show again' }).waitFor();
    await tpage.getByText(`Hidden from the scoreboard: ${REASON}`).waitFor();
    expect((await submission(ada, adaAdd)).hidden_reason === REASON, 'stored');
  });
  await check('the student reads the reason on their submission\'s page and in their list', async () => {
    await login(spage, 'ada', 'ada-password');
    await spage.getByRole('link', { name: 'My submissions' }).click();
    const row = spage.locator('tr', { has: spage.getByRole('link', { name: `#${adaAdd}`, exact: true }) });
    await row.getByText(`Hidden from the scoreboard by your instructor: ${REASON}`).waitFor();
    await shot(spage, 'student-hidden-list');
    await row.getByRole('link', { name: `#${adaAdd}` }).click();
    await spage.locator('.result .verdict').waitFor();
    await spage.getByText(`Hidden from the scoreboard by your instructor: ${REASON}`).waitFor();
    expect(await spage.getByRole('button', { name: /Regrade|Hide/ }).count() === 0, 'no instructor tools for a student');
    await shot(spage, 'student-hidden-submission');
  });
  await check('the audit log lists these actions, newest first, in the viewer\'s time zone', async () => {
    await tpage.goto(`${base}/instructor`);
    await tpage.getByRole('link', { name: 'Audit log' }).click();
    await tpage.getByRole('heading', { name: 'Audit log' }).waitFor();
    const rows = tpage.locator('tbody tr');
    const first = await rows.first().locator('td').allTextContents();
    expect(first[1] === 'admin' && first[2] === 'hide' && first[3] === `submission ${adaAdd} of ada` && first[4] === REASON,
      `the newest is the hide: ${first}`);
    const all = (await rows.allTextContents()).join('\n');
    expect(all.includes('exercise tiny-add') && all.includes('2 submissions'), 'the exercise\'s regrade');
    expect(all.includes(`submission ${benAdd} of ben`), 'the submission\'s regrade');
    const time = rows.first().locator('time');
    const iso = await time.getAttribute('datetime');
    const wanted = await tpage.evaluate(([at, zone]) => new Date(at).toLocaleString(undefined, { timeZone: zone }), [iso, TIME_ZONE]);
    const utc = await tpage.evaluate((at) => new Date(at).toLocaleString(undefined, { timeZone: 'UTC' }), iso);
    const shown = await time.textContent();
    expect(shown === wanted && shown !== utc, `the time in ${TIME_ZONE}: ${shown} (UTC: ${utc})`);
    await shot(tpage, 'instructor-audit');
  });
  await check('the audit log filters by text, and its targets link to their pages', async () => {
    await tpage.getByLabel('Filter').fill('character for');
    await tpage.getByText(/^1 of \d+ entries/).waitFor();
    expect(await tpage.locator('tbody tr').count() === 1, 'one entry holds the reason');
    await tpage.getByRole('link', { name: `submission ${adaAdd} of ada` }).click();
    await tpage.getByRole('heading', { name: `Submission ${adaAdd}` }).waitFor();
  });
  let certificate = null;
  await check('the certificates page lists the certificate with its student, course and link', async () => {
    await tpage.goto(`${base}/instructor`);
    await tpage.getByRole('link', { name: 'Certificates' }).click();
    await tpage.getByRole('heading', { name: 'Certificates' }).waitFor();
    const row = tpage.locator('tbody tr').first();
    const cells = await row.locator('th, td').allTextContents();
    expect(cells[0] === 'ada (ada)' && cells[1] === 'The service\'s test course' && cells[3] === 'valid', `the row: ${cells}`);
    certificate = cells[4];
    await shot(tpage, 'instructor-certificates');
    await row.getByRole('link', { name: certificate }).click();
    await tpage.locator('.certificate-status.valid').waitFor();
  });
  await check('Revoke on the certificate\'s page is a danger action, not the primary button', async () => {
    const revoke = tpage.getByRole('button', { name: 'Revoke…' });
    expect((await revoke.getAttribute('class')).split(' ').includes('danger'), 'styled as a danger action');
    const [background, primary] = await revoke.evaluate((b) => [getComputedStyle(b).backgroundColor,
      getComputedStyle(document.documentElement).getPropertyValue('--accent')]);
    const accent = await tpage.evaluate((c) => { const e = document.createElement('span'); e.style.color = c; document.body.append(e);
      const rgb = getComputedStyle(e).color; e.remove(); return rgb; }, primary.trim());
    expect(background !== accent, `its background ${background} is not the primary's ${accent}`);
    await revoke.click();
    const text = await tpage.locator('form.confirm').textContent();
    expect(text.includes('Revoke the certificate of ada for The service\'s test course?'), `the question names both: ${text}`);
    const submit = tpage.getByRole('button', { name: 'Revoke the certificate' });
    expect((await submit.getAttribute('class')).includes('danger'), 'the confirming button is a danger one too');
    expect(await submit.evaluate((b) => getComputedStyle(b).backgroundColor) !== accent, 'not filled as the primary');
    await tpage.getByRole('button', { name: 'Cancel' }).click();
    await tpage.getByRole('button', { name: 'Revoke…' }).waitFor();
  });
  await check('the instructor revokes it from the certificates page, after the question', async () => {
    await tpage.goto(`${base}/instructor/certificates`);
    await tpage.getByRole('button', { name: 'Revoke…' }).click();
    await tpage.getByText('Revoke the certificate of ada for The service\'s test course?').waitFor();
    await tpage.getByLabel('Reason').fill('copied');
    await shot(tpage, 'instructor-revoke-confirm');
    await tpage.getByRole('button', { name: 'Revoke the certificate' }).click();
    await tpage.getByText(/revoked on .*: copied/).waitFor();
    await tpage.goto(`${base}/certificates/${certificate}`);
    await tpage.locator('.certificate-status.revoked').getByText('copied').waitFor();
    await tpage.goto(`${base}/instructor/audit`);
    await tpage.getByRole('cell', { name: 'certificate revoke' }).waitFor();
  });
  await check('students are kept out of the instructors\' pages', async () => {
    for (const path of ['/instructor/audit', '/instructor/certificates']) {
      await spage.goto(`${base}${path}`);
      await spage.getByText('This page is for instructors and admins.').waitFor();
    }
  });
  await check('no page logged an error or opened a dialog', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await teacher.close();
  await student.close();
}

runBrowserTests(import.meta.url, [instructorJourney]);
