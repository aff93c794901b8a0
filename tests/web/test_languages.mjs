// Unit tests of the exercise page's language choices
// (web/static/languages.js): the languages an exercise takes, the one the
// page opens in (the user's last choice, else their newest submission's,
// else CUDA C; never one the exercise refuses), the choice remembered per
// user name and a storage that refuses kept harmless, the starter of each
// language (the exercise's, else one made from the Numba forms), and what
// the kernel must be in each.
//
//   node tests/web/test_languages.mjs

import {
  formsOf, hostFormOf, initialLanguage, languageLabel, languagesOf, newestByLanguage, rememberedLanguage,
  rememberLanguage, starterFor,
} from '../../web/static/languages.js';

let passed = 0;
let failed = 0;

function check(name, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g === w) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}: ${g}, expected ${w}`);
  }
}

// A localStorage of a Map.
function memoryStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)) };
}
const refusing = {
  getItem() { throw new Error('SecurityError'); },
  setItem() { throw new Error('QuotaExceededError'); },
};

const both = {
  id: 'tiny-add',
  languages: ['cuda', 'numba'],
  starter: 'C starter',
  starters: { cuda: 'C starter', numba: 'Python starter' },
  forms: {
    cuda: [{ kernel: 'vector_add', signature: '__global__ void vector_add(const float *a, float *c, int n)' }],
    numba: [{ kernel: 'vector_add', name: 'add_kernel', form: 'add_kernel(x, y, out)', signature: 'void(float32[::1], float32[::1], float32[::1])' }],
  },
};
const cudaOnly = { id: 'old', languages: ['cuda'], starter: 'C', forms: { cuda: [], numba: [] } };

check('the labels', [languageLabel('cuda'), languageLabel('numba'), languageLabel(undefined)],
  ['CUDA C', 'Numba Python', 'CUDA C']);
check('the languages taken, in the switch\'s order', languagesOf({ languages: ['numba', 'cuda', 'rust'] }), ['cuda', 'numba']);
check('an exercise that does not say takes CUDA C', languagesOf({}), ['cuda']);

check('the remembered choice first', initialLanguage(both, 'numba', { language: 'cuda' }), 'numba');
check('else the newest submission\'s', initialLanguage(both, null, { language: 'numba' }), 'numba');
check('a submission from before Numba is CUDA C', initialLanguage(both, null, { id: 1 }), 'cuda');
check('else CUDA C', initialLanguage(both, null, null), 'cuda');
check('never a language the exercise refuses', initialLanguage(cudaOnly, 'numba', { language: 'numba' }), 'cuda');
check('a remembered name that is no language is ignored', initialLanguage(both, 'rust', null), 'cuda');

check('the newest in each language', newestByLanguage([{ id: 5, language: 'numba' }, { id: 4 }, { id: 3, language: 'numba' }, { id: 2, language: 'cuda' }]),
  { numba: { id: 5, language: 'numba' }, cuda: { id: 4 } });

const storage = memoryStorage();
rememberLanguage(storage, 'sam', 'numba');
check('remembered per user', [rememberedLanguage(storage, 'sam'), rememberedLanguage(storage, 'kim')], ['numba', null]);
rememberLanguage(refusing, 'sam', 'numba');
check('a storage that refuses remembers nothing, and throws nothing', rememberedLanguage(refusing, 'sam'), null);
check('no storage at all', rememberedLanguage(null, 'sam'), null);

check('the starters of the exercise', [starterFor(both, 'cuda'), starterFor(both, 'numba')], ['C starter', 'Python starter']);
check('a Numba starter made from the forms when there is no starter.py',
  starterFor({ ...both, starters: { cuda: 'C', numba: null } }, 'numba'),
  'from numba import cuda\n\n\n@cuda.jit\ndef add_kernel(x, y, out):\n    pass\n');
check('a server from before Numba: the C starter', starterFor({ starter: 'C' }, 'cuda'), 'C');

check('the C form', formsOf(both, 'cuda'), [{ code: '__global__ void vector_add(const float *a, float *c, int n)', types: null }]);
check('the Numba form, with the types numba compiles it for', formsOf(both, 'numba'),
  [{ code: 'def add_kernel(x, y, out)', types: 'void(float32[::1], float32[::1], float32[::1])' }]);
check('no forms: nothing', formsOf({}, 'numba'), []);
const layer = { forms: { cuda: [], numba: [], numba_host: { function: 'create_hidden_layer',
  form: 'create_hidden_layer(n, greyscales, weights)', returns: 'out' } } };
check('the host form, in Numba', hostFormOf(layer, 'numba'),
  { code: 'def create_hidden_layer(n, greyscales, weights)', returns: 'out' });
check('... none in CUDA C', hostFormOf(layer, 'cuda'), null);
check('no host form: null', hostFormOf(both, 'numba'), null);
check('a server from before the host form: null', hostFormOf({}, 'numba'), null);

console.log(`test_languages.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
