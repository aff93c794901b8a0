// Browser tests of the web pages (the harness: harness.mjs). The journey:
// log in; submit a good kernel and see "passed" with the time chart; a
// compile error marked at its line; a wrong kernel with its first
// mismatch; the scoreboard; a token made on the tokens page that works
// with curl (and the Python client it links to downloads); the admin's
// first login, which asks for a password of their own before anything
// else; the instructor's class table, CSV export and a new account whose
// display name tries XSS and shows as text; the note when a session
// expires; a certificate once both assessments pass. No page may log an
// error (a CSP violation would). Numbers people can read (issue 16):
// tiny-add-twice's reference is slow on purpose, so a good kernel is some
// 300× faster, and no page may show "0.00×" for it; a certificate of the
// old format (kgrade-certificate/1), planted in the database, still shows
// VALID. Numba (issue 17): a second student switches the exercise page to
// Numba Python (the starter.py and the Numba form shown, Python
// highlighting, what was typed in CUDA C kept), submits a Numba kernel
// (the request says "language": "numba") that passes (where numba is
// installed) and one whose Python syntax error is marked at its line,
// finds the page in Numba again after a reload, and the language in their
// submissions.
//
//   node tests/browser/journey.mjs BUILD

import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addStudent, base, check, data, expect, haveNumba, kernels, login, plainGutterText, readsFaster, run,
  runBrowserTests, setSource, shot, submitAndWait,
} from './harness.mjs';

// A certificate as kgrade issued them before issue 16 (kgrade-certificate/1,
// two decimals: 0.00 for a ratio under 0.005), signed with the server's key
// and written into its database, as an upgraded server would hold it.
async function plantOldCertificate(id, user) {
  const seed = readFileSync(join(data, 'signing.key')).subarray(0, 32);
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const payload = JSON.stringify({ assessments: [{ exercise: 'tiny-add', ratio: '0.00', submission: 1 }],
    course: { id: 'old-course', title: 'An old course' }, format: 'kgrade-certificate/1', id, issued_on: '2025-01-01', student: user });
  const signature = sign(null, Buffer.from(payload), key).toString('base64');
  await run('sqlite3', ['-cmd', '.timeout 10000', join(data, 'kgrade.db'),
    `INSERT INTO certificates (id, user_id, course, payload, signature, issued_at) VALUES ('${id}', ` +
    `(SELECT id FROM users WHERE name = '${user}'), 'old-course', '${payload}', '${signature}', 1735689600000)`]);
}

async function journey(browser, admin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  // The browser logs every 401 answer; the expired session earns one on purpose.
  const expected = /^Failed to load resource: the server responded with a status of 401/;
  page.on('console', (m) => { if (m.type() === 'error' && !expected.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', async (d) => { problems.push(`a dialog opened: ${d.message()}`); await d.dismiss(); });

  await addStudent('sam', 'sam-password');
  await check('a student logs in and sees the course', async () => {
    await login(page, 'sam', 'sam-password');
    await page.getByRole('link', { name: /Vector addition, small/ }).waitFor();
    expect(await page.getByText('not tried').count() === 2, 'both exercises should say "not tried"');
    await shot(page, 'exercises');
  });
  await check('the exercise page shows the statement and the editor', async () => {
    await page.getByRole('link', { name: /Vector addition, small/ }).click();
    await page.locator('.statement-box summary h1').waitFor();
    await page.locator('.cm-editor, textarea.code').first().waitFor();
  });
  await check('a good kernel passes, with the time chart', async () => {
    const verdict = await submitAndWait(page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    await page.locator('.chart .bar-fill.fast').waitFor();
    expect(await page.locator('.bar-limit').count() === 1, 'the bar to pass is drawn');
    const seen = await page.evaluate(() => window.progressSeen);
    expect(seen.some((t) => /Assessment run, n = 1,000: (the reference|your kernel)/.test(t)),
      `the progress names the case and the run: ${JSON.stringify(seen)}`);
    await shot(page, 'exercise-passed');
  });
  await check('a compile error is marked at its line', async () => {
    const verdict = await submitAndWait(page, 'tests/browser/kernels/compile_error.cu');
    expect(verdict === 'compile_error', `verdict ${verdict}`);
    await page.getByRole('button', { name: 'line 4' }).first().waitFor();
    const marked = await page.locator('.cm-lintRange-error, .cm-lint-marker-error').count()
      + (await plainGutterText(page)).includes('4 ●');
    expect(marked > 0, 'the editor marks the line');
    await shot(page, 'exercise-compile-error');
  });
  await check('a wrong kernel shows its first mismatch', async () => {
    const verdict = await submitAndWait(page, `${kernels}/wrong.cu`);
    expect(verdict === 'wrong_answer', `verdict ${verdict}`);
    await page.locator('.mismatch').getByText('Expected').waitFor();
    await shot(page, 'exercise-wrong-answer');
  });
  await check('my submissions list all three, and one reopens with its source', async () => {
    await page.getByRole('link', { name: 'My submissions' }).click();
    await page.locator('tbody tr').nth(2).waitFor();
    expect(await page.locator('tbody tr').count() === 3, 'three rows');
    await page.locator('tbody tr').last().getByRole('link').first().click();
    await page.locator('pre.source').waitFor();
    await page.locator('.result .verdict.passed').waitFor();
    await shot(page, 'submission');
  });
  await check('the scoreboard lists the student', async () => {
    await page.goto(`${base}/scoreboard/tiny-add`);
    await page.getByRole('cell', { name: 'sam', exact: true }).waitFor();
    await shot(page, 'scoreboard');
  });
  await check('passing the last assessment shows a certificate, VALID on its public page', async () => {
    await page.goto(`${base}/exercises/tiny-add-twice`);
    const verdict = await submitAndWait(page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    await readsFaster(page);
    await shot(page, 'exercise-faster');
    await page.getByRole('link', { name: 'Exercises' }).click();
    await page.getByRole('heading', { name: 'Your certificates' }).waitFor();
    await readsFaster(page);
    await page.getByRole('link', { name: /The service's test course: certificate/ }).click();
    await page.locator('.certificate-status.valid').waitFor();
    expect((await page.locator('.certificate-name').textContent()) === 'sam', 'the name is on it');
    await readsFaster(page);
    await shot(page, 'certificate');
  });
  await check('a kernel far faster than the reference never reads 0.00× in the lists and scoreboards', async () => {
    await page.getByRole('link', { name: 'My submissions' }).click();
    await page.locator('tbody tr').nth(3).waitFor();
    await readsFaster(page);
    await page.goto(`${base}/scoreboard/tiny-add-twice`);
    await page.getByRole('cell', { name: 'sam', exact: true }).waitFor();
    await readsFaster(page);
  });
  await check('a certificate of the old format still shows VALID, its 0.00 read as under 0.005×', async () => {
    await plantOldCertificate('oldformatcertificate234567', 'sam');
    await page.goto(`${base}/certificates/oldformatcertificate234567`);
    await page.locator('.certificate-status.valid').waitFor();
    await page.getByRole('cell', { name: 'under 0.005×, over 200× faster than the reference' }).waitFor();
    expect(!(await page.locator('main').textContent()).includes('0.00×'), 'no 0.00× on the page');
  });
  await check('a token made on the tokens page works with curl', async () => {
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Create a token' }).click();
    const token = (await page.locator('.token-shown pre').first().textContent()).trim();
    const { stdout } = await run('curl', ['-s', '-w', '%{http_code}', '-o', '/dev/null', '-H', `Authorization: Bearer ${token}`, `${base}/api/v1/submissions`]);
    expect(stdout === '200', `curl got ${stdout}`);
    expect((await page.locator('.token-shown').textContent()).includes('kgrade submit --server'), 'a kgrade submit line');
    const shown = await page.locator('.token-shown').textContent();
    expect(shown.includes('python3 kgrade_client.zip submit --server') && shown.includes('%load_ext kgrade_client'),
      'the Python client\'s command and the notebook\'s lines');
    const zip = await page.locator('.token-shown a[download]').getAttribute('href');
    const got = await run('curl', ['-s', '-w', '%{http_code} %{content_type}', '-o', '/dev/null', `${base}${zip}`]);
    expect(got.stdout === '200 application/zip', `the client's link got ${got.stdout}`);
    await shot(page, 'tokens');
  });
  await check('an expired session says so and leads to the login page', async () => {
    await context.clearCookies();
    await page.getByRole('link', { name: 'My submissions' }).click();
    await page.getByText('Your session has expired').waitFor();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  });
  await check('the admin\'s first login asks for a password of their own, and nothing else opens', async () => {
    await login(page, 'admin', admin, { landing: 'Change your password' });
    await page.getByText('Your password was made for you').waitFor();
    await page.goto(`${base}/instructor`);
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await page.getByLabel('Current password').fill(admin);
    await page.getByLabel('New password', { exact: true }).fill('admin-password-2');
    await page.getByLabel('New password, again').fill('admin-password-2');
    await shot(page, 'password');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('heading', { name: 'Exercises' }).waitFor();
    await page.getByText('Your password is changed').waitFor();
  });
  await check('the instructor sees the class and exports the grades', async () => {
    await page.getByRole('link', { name: 'Class' }).click();
    await page.getByRole('link', { name: 'sam' }).first().waitFor();
    await readsFaster(page);
    const csv = await (await page.request.get(`${base}/api/v1/export/grades.csv`)).text();
    expect(csv.includes('sam,sam,tiny-add,passed,1.00,'), 'the CSV has sam passed');
    expect(/^sam,sam,tiny-add-twice,passed,0\.00[1-9]\d\d,1,/m.test(csv), `three significant figures in the CSV: ${csv}`);
    await shot(page, 'instructor');
  });
  await check('a display name with markup shows as text', async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    await page.getByLabel('Login name').fill('mallory');
    await page.getByLabel('Display name').fill(evil);
    await page.getByRole('button', { name: 'Add the account' }).click();
    await page.getByRole('cell', { name: evil }).waitFor();
    expect(await page.locator('main img, main script').count() === 0, 'no element came from the name');
  });
  await check('the instructor hides a submission from the scoreboard', async () => {
    await page.goto(`${base}/instructor/students/sam`);
    await page.getByRole('button', { name: 'Hide' }).first().waitFor();
    const passing = page.locator('tr', { has: page.locator('.verdict.passed') })
      .filter({ has: page.getByRole('link', { name: 'tiny-add', exact: true }) });
    await passing.getByRole('button', { name: 'Hide…' }).click();
    await passing.getByLabel('Reason (the student reads it)').fill('a test of hiding');
    await passing.getByRole('button', { name: 'Hide from the scoreboard' }).click();
    await passing.getByRole('button', { name: 'Show again' }).waitFor();
    await page.goto(`${base}/scoreboard/tiny-add`);
    await page.getByText('Nobody has passed yet.').waitFor();
  });
  await check('the instructor revokes the certificate; its page says REVOKED with the reason', async () => {
    const { certificates } = await (await page.request.get(`${base}/api/v1/certificates?user=sam`)).json();
    await page.goto(`${base}/certificates/${certificates.find((c) => c.course === 'test-course').id}`);
    await page.getByRole('button', { name: 'Revoke…' }).click();
    await page.getByLabel('Reason').fill('a test of revocation');
    await page.getByRole('button', { name: 'Revoke the certificate' }).click();
    await page.locator('.certificate-status.revoked').getByText('a test of revocation').waitFor();
    await shot(page, 'certificate-revoked');
  });
  await check('the pages are usable on a narrow screen', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/exercises/tiny-add`);
    await page.locator('.statement-box summary h1').waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width <= 400, `the page is ${width} px wide`);
    await shot(page, 'narrow');
  });
  await check('a browser that prefers French gets the French statement', async () => {
    const french = await browser.newContext({ locale: 'fr-FR' });
    const p = await french.newPage();
    await p.goto(`${base}/exercises/tiny-add`);
    await p.locator('.statement[lang=fr]').waitFor(); // its title is the summary's, in French
    await p.locator('.statement-box summary h1[lang=fr]').getByText('en français').waitFor();
    await french.close();
  });
  await check('no page logged an error (CSP violations included)', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await context.close();
}

async function numbaJourney(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  const posted = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/v1/submissions')) posted.push(r.postDataJSON());
  });
  const editorText = () => page.evaluate(() => {
    const lines = document.querySelectorAll('.cm-content .cm-line');
    return lines.length ? Array.from(lines, (l) => l.textContent).join('\n')
      : document.querySelector('textarea.code').value;
  });
  const numbaRadio = page.getByRole('radio', { name: 'Numba Python' });
  const cudaRadio = page.getByRole('radio', { name: 'CUDA C' });
  const cudaTyped = readFileSync(`${kernels}/good.cu`, 'utf8');
  const graded = await haveNumba();
  const starterPy = readFileSync('tests/service/exercises/tiny-add/starter.py', 'utf8');
  const starterCu = readFileSync('tests/service/exercises/tiny-add/starter.cu', 'utf8');

  await addStudent('nina', 'nina-password');
  await check('Numba: the exercise page offers CUDA C and Numba Python, CUDA C first', async () => {
    await login(page, 'nina', 'nina-password');
    await page.goto(`${base}/exercises/tiny-add`);
    await page.locator('.cm-editor, textarea.code').first().waitFor();
    expect(await cudaRadio.isChecked(), 'CUDA C is chosen');
    await page.locator('.kernel-forms').getByText('__global__ void vector_add').waitFor();
  });
  await check('Numba: switching loads the starter.py, the Numba form and Python highlighting', async () => {
    await setSource(page, `${kernels}/good.cu`);
    await numbaRadio.check();
    await page.locator('.kernel-forms').getByText('def add_kernel(x, y, out)').waitFor();
    expect((await page.locator('.kernel-forms').textContent()).includes('void(float32[::1], float32[::1], float32[::1])'),
      'the signature numba compiles it for');
    expect(await editorText() === starterPy, `the editor holds starter.py: ${await editorText()}`);
    const python = await page.locator('.cm-content[data-language=python], .plain-editor[data-language=numba]').count();
    expect(python === 1, 'the editor highlights Python');
    await shot(page, 'exercise-numba');
  });
  await check('Numba: what was typed in each language is kept across switches', async () => {
    await page.keyboard.insertText('# typed in Python\n');
    const typedPy = await editorText();
    await cudaRadio.check();
    expect(await editorText() === cudaTyped, 'the CUDA C typed before');
    expect(await page.locator('.cm-content[data-language=cpp], .plain-editor[data-language=cuda]').count() === 1,
      'C++ highlighting again');
    await numbaRadio.check();
    expect(await editorText() === typedPy, 'the Python typed before');
  });
  await check('Numba: a Numba kernel is submitted as Numba, and its result shown', async () => {
    const verdict = await submitAndWait(page, `${kernels}/good.py`);
    expect(posted.length === 1 && posted[0].language === 'numba' && posted[0].exercise === 'tiny-add',
      `the request: ${JSON.stringify(posted)}`);
    if (graded) {
      expect(verdict === 'passed', `verdict ${verdict}`);
      await page.locator('.chart .bar-fill.fast').waitFor();
    }
    await shot(page, 'exercise-numba-result');
  });
  await check('Numba: diagnostics point at the Python lines', async () => {
    const broken = `${readFileSync(`${kernels}/good.py`, 'utf8')}\n\ndef broken(:\n    pass\n`;
    const file = join(data, 'broken.py');
    writeFileSync(file, broken);
    await setSource(page, file);
    const line = broken.split('\n').indexOf('def broken(:') + 1;
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('.result .verdict').waitFor({ timeout: 120000 });
    if (!graded) return; // no numba: no Python diagnostics to mark
    await page.locator('.result .verdict.compile_error').waitFor();
    await page.getByRole('button', { name: `line ${line}` }).first().waitFor();
    const marked = await page.locator('.cm-lintRange-error, .cm-lint-marker-error').count()
      + (await plainGutterText(page)).includes(' ●');
    expect(marked > 0, 'the editor marks the line');
  });
  await check('Numba: the choice is remembered, with the last Numba source', async () => {
    await page.reload();
    await page.locator('.cm-editor, textarea.code').first().waitFor();
    expect(await numbaRadio.isChecked(), 'Numba Python is still chosen');
    expect((await editorText()).includes('def broken(:'), 'the last Numba submission\'s source');
    await cudaRadio.check();
    expect(await editorText() === starterCu, 'the CUDA C starter (nothing submitted in C)');
  });
  await check('Numba: my submissions show the language', async () => {
    await page.getByRole('link', { name: 'My submissions' }).click();
    await page.locator('tbody tr').nth(1).waitFor();
    expect(await page.locator('tbody td.language').allTextContents().then((t) => t.every((x) => x === 'Numba Python')),
      'each row says Numba Python');
    await page.locator('tbody tr').first().getByRole('link').first().click();
    await page.locator('pre.source').waitFor();
    await page.getByText(/in Numba Python by nina/).waitFor();
  });
  await check('Numba: no page logged an error', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await context.close();
}

runBrowserTests(import.meta.url, [journey, numbaJourney]);
