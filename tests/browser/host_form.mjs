// Browser tests of the host form on the exercise page (issue 34; the
// harness: harness.mjs), with hidden-layer at a small assessed size
// (tests/service/small_hidden_layer.sh): the statement shows "The course's
// form"; in Numba the page shows the kernel's form and, as the other way
// to answer, create_hidden_layer's; the course's answer (a module with
// create_hidden_layer and its CUDA ufuncs, no kernel of the exercise's
// form) is taken, submitted as Numba and passes (where numba is
// installed), its result saying its copies against the reference's. No
// page may log an error.
//
//   node tests/browser/host_form.mjs BUILD

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addStudent, base, check, expect, haveNumba, login, run, runBrowserTests, shot, submitAndWait, trackedPage,
} from './harness.mjs';

const COURSE_ANSWER = 'exercises/hidden-layer/solutions/passed__course_host_answer.py';
const exercises = mkdtempSync(join(tmpdir(), 'kgrade-host-form-'));
process.on('exit', () => rmSync(exercises, { recursive: true, force: true }));
await run('tests/service/small_hidden_layer.sh', [exercises]);

async function hostForm(browser) {
  const { context, page, problems } = await trackedPage(browser);
  const posted = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/v1/submissions')) posted.push(r.postDataJSON());
  });
  const forms = page.locator('.kernel-forms');
  const graded = await haveNumba();

  await addStudent('hana', 'hana-password');
  await check('host form: the statement shows the course\'s form', async () => {
    await login(page, 'hana', 'hana-password');
    await page.goto(`${base}/exercises/hidden-layer`);
    await page.locator('.cm-editor, textarea.code').first().waitFor();
    await page.getByRole('heading', { name: /^The course.s form$/ }).waitFor(); // its ’ typeset
    await page.getByText('def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):').waitFor();
  });
  await check('host form: in Numba, the kernel\'s form and the course\'s host form', async () => {
    await page.getByRole('radio', { name: 'Numba Python' }).check();
    await forms.getByText('def hidden_layer(greyscales, weights, out)').waitFor();
    await forms.getByText('def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate)').waitFor();
    expect((await forms.textContent()).includes('returning out as a host array'), await forms.textContent());
    await shot(page, 'exercise-host-form');
  });
  await check('host form: CUDA C shows no host form', async () => {
    await page.getByRole('radio', { name: 'CUDA C' }).check();
    await forms.getByText('__global__ void hidden_layer').waitFor();
    expect(await forms.locator('.host-form').count() === 0, 'a host form under CUDA C');
    await page.getByRole('radio', { name: 'Numba Python' }).check();
  });
  await check('host form: the course\'s answer is submitted as Numba, and passes', async () => {
    const verdict = await submitAndWait(page, COURSE_ANSWER);
    expect(posted.length === 1 && posted[0].language === 'numba' && posted[0].exercise === 'hidden-layer'
      && posted[0].source.includes('def create_hidden_layer('), `the request: ${JSON.stringify(posted)}`);
    if (graded) {
      expect(verdict === 'passed', `verdict ${verdict}`);
      await page.getByText(/2 copies to the device \([0-9.]+ [KMG]?B\) and 1 back, against the reference's 2 and 1/)
        .first().waitFor();
      await page.getByText(/the virtual GPU ran the call's kernels and copies and modeled its time/).first().waitFor();
    }
    await shot(page, 'exercise-host-form-result');
  });
  await check('host form: no page logged an error', async () => {
    expect(problems.length === 0, problems.join('\n'));
  });
  await context.close();
}

runBrowserTests(import.meta.url, [hostForm], { exercises });
