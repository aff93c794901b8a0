// Browser tests of a course with dates (the harness: harness.mjs): an
// instructor sets a deadline in the past for an exercise on the Class
// page; a student submits, is graded and sees the late mark; the
// gradebook lists a student who never submitted, shows the late mark,
// then counts the pass once the instructor grants an extension; the wide
// CSV downloads. No page may log an error (a CSP violation would).
//
//   node tests/browser/course.mjs BUILD

import { readFileSync } from 'node:fs';
import {
  addStudent, base, check, expect, kernels, login, runBrowserTests, shot, submitAndWait, trackedPage,
} from './harness.mjs';

// A datetime-local value `days` from now, in the browser's zone.
function localInput(page, days) {
  return page.evaluate((d) => {
    const t = new Date(Date.now() + d * 86400000);
    const pad = (n) => String(n).padStart(2, '0');
    return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
  }, days);
}

// The gradebook's row of a student.
const rowOf = (page, name) => page.locator('.gradebook tr', { has: page.getByRole('link', { name, exact: true }) });

async function course(browser, admin) {
  await addStudent('lea', 'lea-password');
  await addStudent('nora', 'nora-password');
  const teacher = await trackedPage(browser);
  const student = await trackedPage(browser);
  const page = teacher.page;

  await check('the instructor sees every student, one who never submitted too', async () => {
    await login(page, 'admin', admin, { landing: 'Change your password' });
    await page.getByLabel('Current password').fill(admin);
    await page.getByLabel('New password', { exact: true }).fill('admin-password-2');
    await page.getByLabel('New password, again').fill('admin-password-2');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('heading', { name: 'Exercises' }).waitFor();
    await page.goto(`${base}/instructor`);
    await rowOf(page, 'nora').waitFor();
    expect(await rowOf(page, 'nora').locator('td.untried').count() === 2, 'nora: two untried cells');
    expect((await rowOf(page, 'nora').textContent()).includes('0 of 2'), 'nora: 0 of 2 assessments');
  });
  await check('the instructor sets a deadline in the past for tiny-add', async () => {
    await page.getByLabel('Deadline of tiny-add', { exact: true }).fill(await localInput(page, -1));
    await page.getByRole('button', { name: 'Save the dates of tiny-add', exact: true }).click();
    await page.getByText(/^set here/).waitFor();
    const { deadline } = await (await page.request.get(`${base}/api/v1/exercises/tiny-add`)).json();
    expect(Date.parse(deadline) < Date.now(), `the deadline is past: ${deadline}`);
    await shot(page, 'class-dates');
  });
  await check('a student submits after the deadline and sees the late mark', async () => {
    await login(student.page, 'lea', 'lea-password');
    await student.page.getByText(/closed /).first().waitFor(); // the exercise list says so
    await student.page.getByRole('link', { name: /Vector addition, small/ }).click();
    const verdict = await submitAndWait(student.page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    await student.page.getByText(/^late: submitted after the deadline of /).waitFor();
    await shot(student.page, 'late-submission');
    await student.page.goto(`${base}/submissions`);
    await student.page.locator('.late-mark').first().waitFor();
  });
  await check('the gradebook marks the late pass and does not count it', async () => {
    await page.goto(`${base}/instructor`);
    const cell = rowOf(page, 'lea').locator('td.status').first();
    await cell.locator('.late-mark').waitFor();
    expect((await cell.textContent()).includes('not yet'), `not counted: ${await cell.textContent()}`);
    await shot(page, 'gradebook-late');
  });
  await check('an extension makes it count', async () => {
    await page.getByLabel('Student', { exact: true }).selectOption('lea');
    await page.getByLabel('on', { exact: true }).selectOption('tiny-add');
    await page.getByLabel('until', { exact: true }).fill(await localInput(page, 2));
    await page.getByRole('button', { name: 'Grant the extension' }).click();
    await page.getByRole('button', { name: 'Revoke' }).waitFor();
    const cell = rowOf(page, 'lea').locator('td.status').first();
    await cell.getByText(/^passed 1\.00×$/).waitFor();
    expect(await cell.locator('.late-mark').count() === 0, 'no late mark once counted');
    expect((await rowOf(page, 'lea').textContent()).includes('1 of 2'), 'one assessment passed');
  });
  await check('the filters keep who has not passed everything, and find by name', async () => {
    await page.getByLabel('Find a student').fill('nor');
    expect(await rowOf(page, 'lea').count() === 0 && await rowOf(page, 'nora').count() === 1, 'only nora');
    await page.getByLabel('Find a student').fill('');
    await page.getByLabel('only the assessments').check();
    expect(await rowOf(page, 'lea').count() === 1, 'lea again');
  });
  await check('the wide CSV downloads, one row per student', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'one row per student', exact: true }).click()]);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv.startsWith('name,display_name,tiny-add.status,tiny-add.best_ratio,tiny-add.best_submitted_at,tiny-add.late,'), `header: ${csv.split('\n')[0]}`);
    expect(/^lea,lea,passed,1\.00,20\d\d-/m.test(csv), `lea's row: ${csv}`);
    expect(/^nora,nora,untried,/m.test(csv), `nora's row: ${csv}`);
  });
  await check('no page logged an error', async () => {
    const problems = [...teacher.problems, ...student.problems];
    expect(problems.length === 0, problems.join('\n'));
  });
  await teacher.context.close();
  await student.context.close();
}

runBrowserTests(import.meta.url, [course]);
