// Browser tests of the student's page (issue 18; the harness: harness.mjs):
// "Try at small n" grades the editor's kernel at the largest correctness
// size and shows a labelled trial result while the submissions list stays
// empty; a wrong kernel's trial shows the inputs beside expected and got;
// a compile error shows no device sentence; the progress label names the
// phase and the n; the result that earns a certificate says so with its
// link and the course's title (and the exercises page's link shows the
// title); the title is shown once, the editor is tall and resizable; and
// at phone width (390 × 844) the statement is a closed disclosure with the
// editor within the first screens, no horizontal overflow, the signature
// wrapped, not clipped (element boxes, not pixels).
//
//   node tests/browser/student.mjs BUILD

import {
  addStudent, base, check, expect, kernels, login, runBrowserTests, setSource, shot, submitAndWait,
  trackedPage,
} from './harness.mjs';

const TRIAL_LABEL = 'Trial at n = 100 — not recorded; Submit to be graded';

// Records every progress label shown, however briefly, in window.progressSeen.
async function watchProgress(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    new MutationObserver(() => {
      const label = document.querySelector('.progress-label');
      if (label) window.progressSeen.push(label.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

// Tries the kernel in `file`; the trial's verdict (the result's class).
async function tryKernel(page, file) {
  await setSource(page, file);
  await watchProgress(page);
  await page.getByRole('button', { name: 'Try at small n' }).click();
  await page.locator('.result.trial .verdict').waitFor({ timeout: 120000 });
  return (await page.locator('.result').getAttribute('class')).replace(/result|trial/g, '').trim();
}

async function mySubmissions(page) {
  return page.evaluate(async () => (await (await fetch('/api/v1/submissions')).json()).submissions);
}

async function desktop(browser) {
  const { context, page, problems } = await trackedPage(browser);
  await addStudent('tess', 'tess-password');
  await login(page, 'tess', 'tess-password');
  await page.goto(`${base}/exercises/tiny-add`);
  await page.locator('.cm-editor, textarea.code').first().waitFor();

  await check('the title is shown once, and the editor is tall and resizable', async () => {
    const titles = await page.locator('main h1').allTextContents();
    expect(titles.length === 1, `one title: ${JSON.stringify(titles)}`);
    const box = await page.locator('.editor-box').boundingBox();
    expect(box.height >= 400, `the editor is ${box.height} px tall`);
    const resize = await page.locator('.editor-box').evaluate((e) => getComputedStyle(e).resize);
    expect(resize === 'vertical', `the editor's box resizes: ${resize}`);
    const inner = await page.locator('.cm-editor, .plain-editor').first().boundingBox();
    expect(Math.abs(inner.height - box.height) < 4, `the editor fills its box: ${inner.height} of ${box.height}`);
  });
  await check('try at small n: a labelled trial result, not among the submissions', async () => {
    const verdict = await tryKernel(page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    expect((await page.locator('.trial-label').textContent()) === TRIAL_LABEL, 'the trial label');
    expect(await page.locator('.result .chart').count() === 0, 'no time: a trial judges no speed');
    const seen = await page.evaluate(() => window.progressSeen);
    expect(seen.some((t) => /^Correctness case 1 of 1, n = 100/.test(t)), `the trial's progress: ${JSON.stringify(seen)}`);
    expect((await mySubmissions(page)).length === 0, 'no submission recorded');
    await shot(page, 'student-trial');
  });
  await check('a wrong kernel shows the inputs at the wrong element beside expected and got', async () => {
    const verdict = await tryKernel(page, `${kernels}/wrong.cu`);
    expect(verdict === 'wrong_answer', `verdict ${verdict}`);
    const rows = await page.locator('table.mismatch-inputs tbody tr').allTextContents();
    expect(rows.length === 2 && /^a\[\d+\]-?\d/.test(rows[0]) && /^b\[\d+\]-?\d/.test(rows[1]),
      `the inputs a and b at the element: ${JSON.stringify(rows)}`);
    await page.locator('.mismatch').getByText('Expected').waitFor();
    await shot(page, 'student-wrong-inputs');
  });
  await check('a compile error shows no device sentence', async () => {
    const verdict = await submitAndWait(page, 'tests/browser/kernels/compile_error.cu');
    expect(verdict === 'compile_error', `verdict ${verdict}`);
    expect(await page.locator('.result .device').count() === 0, 'no device line');
    const text = await page.locator('main').textContent();
    expect(!/ran the kernel|a real GPU/.test(text), 'no sentence says a kernel ran');
  });
  await check('the progress names the phase and the n; the device is named where a kernel ran', async () => {
    const verdict = await submitAndWait(page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    const seen = await page.evaluate(() => window.progressSeen);
    expect(seen.some((t) => /^Assessment run, n = 1,000: (the reference|your kernel)/.test(t)), `the assessment: ${JSON.stringify(seen)}`);
    expect(seen.some((t) => /^Correctness case 1 of 1, n = 100/.test(t)), `the correctness case: ${JSON.stringify(seen)}`);
    expect(seen.includes('Compiling your kernel'), 'the compile');
    expect(await page.locator('.result .device').count() === 1, 'the device line');
    expect(await page.locator('.certificate-earned').count() === 0, 'no certificate yet: one assessment of two');
  });
  await check('the result that earns the certificate says so, with the course\'s title and its link', async () => {
    await page.goto(`${base}/exercises/tiny-add-twice`);
    const verdict = await submitAndWait(page, `${kernels}/good.cu`);
    expect(verdict === 'passed', `verdict ${verdict}`);
    const note = page.locator('.certificate-earned');
    await note.waitFor();
    expect((await note.textContent()).startsWith("You earned the certificate of The service's test course"), await note.textContent());
    await shot(page, 'student-certificate-earned');
    await note.getByRole('link').click();
    await page.locator('.certificate-status.valid').waitFor();
    await page.getByRole('link', { name: 'Exercises' }).click();
    await page.getByRole('link', { name: /^The service's test course: certificate/ }).waitFor();
  });
  await check('the submission\'s own page says it too; the earlier one\'s does not', async () => {
    const [newest, ...earlier] = await mySubmissions(page);
    await page.goto(`${base}/submissions/${newest.id}`);
    await page.locator('.certificate-earned').waitFor();
    await page.goto(`${base}/submissions/${earlier[0].id}`);
    await page.locator('.result .verdict').waitFor();
    expect(await page.locator('.certificate-earned').count() === 0, 'only the one that earned it');
  });
  await check('no page logged an error (CSP violations included)', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await context.close();
}

async function phone(browser) {
  const viewport = { width: 390, height: 844 };
  const { context, page, problems } = await trackedPage(browser, { viewport });
  await login(page, 'tess', 'tess-password');
  await page.goto(`${base}/exercises/tiny-add`);
  await page.locator('.cm-editor, textarea.code').first().waitFor();
  await check('at 390 px the statement is closed, its summary the title, the editor near the top', async () => {
    expect(await page.locator('details.statement-box').evaluate((d) => !d.open), 'the statement starts closed');
    const summary = await page.locator('.statement-box summary h1').textContent();
    expect(summary.startsWith('tiny-add'), `the summary is the statement's title: ${summary}`);
    const top = (await page.locator('.editor-box').boundingBox()).y;
    expect(top < viewport.height, `the editor begins ${top} px down, within the first screen`);
    await shot(page, 'student-phone');
  });
  await check('at 390 px nothing overflows the page and the signature wraps, not clipped', async () => {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width <= viewport.width, `the page is ${width} px wide`);
    const code = page.locator('.kernel-forms code').first();
    const box = await code.boundingBox();
    expect(box.x >= 0 && box.x + box.width <= viewport.width, `the signature's box: ${JSON.stringify(box)}`);
    const fits = await code.evaluate((c) => c.scrollWidth <= c.clientWidth + 1 || c.getClientRects().length > 1);
    expect(fits, 'the signature is wrapped on lines, not cut');
    const lines = await code.evaluate((c) => c.getClientRects().length);
    expect(lines > 1, `the long signature takes ${lines} lines`);
  });
  await check('at 390 px the statement opens from its title', async () => {
    await page.locator('.statement-box summary').click();
    await page.locator('.statement').getByText('is rendered').first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width <= viewport.width, `opened, the page is ${width} px wide`);
    await shot(page, 'student-phone-statement');
  });
  await check('a trial at 390 px shows its label', async () => {
    await tryKernel(page, `${kernels}/good.cu`);
    expect((await page.locator('.trial-label').textContent()) === TRIAL_LABEL, 'the trial label');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width <= viewport.width, `with a result, the page is ${width} px wide`);
  });
  await check('no page logged an error at 390 px', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await context.close();
}

runBrowserTests(import.meta.url, [desktop, phone]);
