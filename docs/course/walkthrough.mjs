// The README's "Running a course", acted out and photographed: a fresh
// `kgrade serve` on the bundled exercises (the cuda-fundamentals course);
// the admin's first login; a class of 40 imported from CSV with its
// passwords shown once; an assessment's deadline set; students who log in
// (the first login asks for a password of their own), try a kernel at
// small n, and submit from the page and from their CI (the API), one
// after the deadline; the gradebook filling, with a student who never
// submitted; the wide CSV export; an exercise regraded. Each step is a
// check, as in the browser tests (their harness), and the screenshots go
// to docs/course/ for the README.
//
//   make screenshots     (node docs/course/walkthrough.mjs BUILD)

import { readFileSync, writeFileSync } from 'node:fs';
import {
  base, check, expect, login, runBrowserTests, setSource,
} from '../../tests/browser/harness.mjs';

const out = new URL('.', import.meta.url).pathname;
const solution = (exercise, name) => `exercises/${exercise}/solutions/${name}`;
const CLASS_SIZE = 40;
const ZONE = 'Europe/Paris';

async function photo(page, name) {
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${out}${name}.png`, fullPage: true });
}

// The class list a teacher exports from the school's system.
function classCsv() {
  const first = ['Ada', 'Alan', 'Barbara', 'Claude', 'Dennis', 'Edsger', 'Frances', 'Grace', 'Guido', 'Hedy'];
  const last = ['Lovelace', 'Turing', 'Liskov', 'Shannon', 'Ritchie', 'Dijkstra', 'Allen', 'Hopper'];
  const rows = ['name,display_name,role'];
  for (let i = 1; i <= CLASS_SIZE; i++) {
    const who = `${first[i % first.length]} ${last[i % last.length]}`;
    rows.push(`s${String(i).padStart(2, '0')},"${who}",student`);
  }
  return `${rows.join('\n')}\n`;
}

// A student's API session, as their CI or a script holds it.
async function apiSession(name, password) {
  const answer = await fetch(`${base}/api/v1/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password }),
  });
  const { csrf_token: csrf } = await answer.json();
  const cookie = answer.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const call = async (method, path, body) => {
    const r = await fetch(`${base}${path}`, {
      method, headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': csrf },
      body: body ? JSON.stringify(body) : undefined,
    });
    return r.json();
  };
  const fresh = `${name}-own-password`;
  await call('POST', '/api/v1/me/password', { current_password: password, new_password: fresh });
  return call;
}

async function waitAllDone(call, ids) {
  for (const id of ids) {
    for (let i = 0; i < 600; i++) {
      const s = await call('GET', `/api/v1/submissions/${id}`);
      if (s.status === 'done') break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function walkthrough(browser, admin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
  const page = await context.newPage();
  let passwords = [];

  await check('the admin logs in with the temporary password and chooses one', async () => {
    await login(page, 'admin', admin, { landing: 'Change your password' });
    await photo(page, 'first-login');
    await page.getByLabel('Current password').fill(admin);
    await page.getByLabel('New password', { exact: true }).fill('a-long-admin-password');
    await page.getByLabel('New password, again').fill('a-long-admin-password');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('heading', { name: 'Exercises' }).waitFor();
  });
  await check(`a class of ${CLASS_SIZE} is imported from CSV, the passwords shown once`, async () => {
    await page.goto(`${base}/instructor`);
    await page.getByLabel('or the CSV text').fill(classCsv());
    await page.getByRole('button', { name: 'Import the accounts' }).click();
    await page.getByText(`${CLASS_SIZE} accounts created`).waitFor({ timeout: 60000 });
    const rows = page.locator('.password-card tbody tr');
    passwords = await rows.evaluateAll((trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[2].textContent]));
    expect(passwords.length === CLASS_SIZE, `${passwords.length} passwords shown`);
    await page.locator('.password-card').scrollIntoViewIfNeeded();
    await page.locator('.password-card').screenshot({ path: `${out}import.png` });
  });
  await check('the deadline of the histogram assessment is set (here, already past)', async () => {
    const yesterday = await page.evaluate(() => {
      const t = new Date(Date.now() - 86400000);
      const pad = (n) => String(n).padStart(2, '0');
      return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T18:00`;
    });
    await page.getByLabel('Deadline of histogram', { exact: true }).fill(yesterday);
    await page.getByRole('button', { name: 'Save the dates of histogram', exact: true }).click();
    await page.getByText(/^set here/).first().waitFor();
    await page.locator('.class-dates').screenshot({ path: `${out}dates.png` });
  });

  const student = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
  const sp = await student.newPage();
  const [firstName, firstPassword] = passwords[0];
  await check('a student\'s first login asks for a password of their own, then the course', async () => {
    await login(sp, firstName, firstPassword, { landing: 'Change your password' });
    await sp.getByLabel('Current password').fill(firstPassword);
    await sp.getByLabel('New password', { exact: true }).fill(`${firstName}-own-password`);
    await sp.getByLabel('New password, again').fill(`${firstName}-own-password`);
    await sp.getByRole('button', { name: 'Change the password' }).click();
    await sp.getByRole('heading', { name: 'Exercises' }).waitFor();
    await photo(sp, 'student-exercises');
  });
  await check('the student tries a kernel at small n before submitting it', async () => {
    await sp.goto(`${base}/exercises/vector-add`);
    await setSource(sp, solution('vector-add', 'memory_error__no_guard.cu'));
    await sp.getByRole('button', { name: 'Try at small n' }).click();
    await sp.locator('.result .verdict').waitFor({ timeout: 120000 });
    await sp.getByText(/not recorded/).waitFor();
    await photo(sp, 'student-trial');
  });

  // The rest of the class submits from their CI: a few passes, the usual
  // mistakes, one assessment after its deadline; s40 never submits.
  const work = [
    [1, 'vector-add', 'passed__guarded_index.cu'], [2, 'vector-add', 'compile_error__missing_semicolon.cu'],
    [3, 'vector-add', 'memory_error__no_guard.cu'], [4, 'square', 'wrong_answer__cubes_instead.cu'],
    [5, 'square', 'memory_error__no_guard.cu'], [6, 'histogram', 'compile_error__missing_semicolon.cu'],
    [7, 'vector-add', 'passed__vectorize.py'],
  ];
  await check('students submit from their CI, one after a deadline; the gradebook fills', async () => {
    let call = null; // the last student's, to follow the grading
    const ids = [];
    for (const [who, exercise, file] of work) {
      const [name, password] = passwords[who];
      call = await apiSession(name, password);
      const language = file.endsWith('.py') ? 'numba' : 'cuda';
      const answer = await call('POST', '/api/v1/submissions', { exercise, language, source: readFileSync(solution(exercise, file), 'utf8') });
      expect(answer.id, `submitted: ${JSON.stringify(answer)}`);
      ids.push(answer.id);
    }
    await waitAllDone(call, ids.slice(-1));
    await page.goto(`${base}/instructor`);
    await page.locator('.gradebook').waitFor();
    for (let i = 0; i < 240 && (await page.locator('.gradebook td.pending').count()) > 0; i++) {
      await page.waitForTimeout(1000);
      await page.reload();
      await page.locator('.gradebook').waitFor();
    }
    expect(await page.locator('.gradebook .late-mark').count() > 0, 'a late mark');
    await page.locator('.gradebook').scrollIntoViewIfNeeded();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${out}gradebook.png` });
    await page.getByLabel('only the assessments').check();
    await page.locator('.gradebook .late-mark').first().waitFor();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${out}gradebook-assessments.png` });
    await page.getByLabel('only the assessments').uncheck();
  });
  await check('the wide CSV has one row per student, with the dates', async () => {
    const csv = await (await page.request.get(`${base}/api/v1/export/grades.csv?format=wide`)).text();
    const lines = csv.trim().split('\n');
    expect(lines.length === CLASS_SIZE + 1, `${lines.length} lines`);
    writeFileSync(`${out}grades-wide.csv`, `${lines.slice(0, 4).join('\n')}\n`);
  });
  await check('an exercise is regraded after a fix of its reference', async () => {
    await page.getByText('Regrade an exercise').click();
    await page.getByLabel('Exercise', { exact: true }).selectOption('vector-add');
    await page.getByRole('button', { name: /Regrade all submissions/ }).click();
    await page.locator('.confirm').waitFor();
    await page.locator('.instructor-tools').screenshot({ path: `${out}regrade.png` });
    await page.getByRole('button', { name: /^Regrade \d+ submissions$/ }).click();
    await page.getByText(/submissions? queued again/).waitFor();
  });
  await context.close();
  await student.close();
}

runBrowserTests(import.meta.url, [walkthrough], { exercises: 'exercises' });
