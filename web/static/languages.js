// The languages a kernel may be written in (CUDA C, Numba CUDA Python), as
// the pages name them, and the exercise page's choices between them: which
// one it shows first, where a user's choice is remembered (localStorage,
// per user name), what a kernel in each starts from, and what the student
// must define. No DOM here, so that tests/web runs it in Node.

export const LANGUAGES = [
  { id: 'cuda', label: 'CUDA C' },
  { id: 'numba', label: 'Numba Python' },
];

export function languageLabel(id) {
  const language = LANGUAGES.find((l) => l.id === (id || 'cuda'));
  return language ? language.label : id;
}

// The languages an exercise takes, in the switch's order (["cuda"] when
// it does not say).
export function languagesOf(exercise) {
  const taken = Array.isArray(exercise.languages) ? exercise.languages : ['cuda'];
  const known = LANGUAGES.map((l) => l.id).filter((id) => taken.includes(id));
  return known.length ? known : ['cuda'];
}

export function storageKey(userName) {
  return `kgrade.language.${userName || ''}`;
}

// The language `userName` chose last, or null (storage may be missing or
// refuse: a private window).
export function rememberedLanguage(storage, userName) {
  try {
    return storage ? storage.getItem(storageKey(userName)) : null;
  } catch (e) {
    return null;
  }
}

export function rememberLanguage(storage, userName, id) {
  try {
    if (storage) storage.setItem(storageKey(userName), id);
  } catch (e) {
    // not remembered: the page still works
  }
}

// The newest submission in each language, from a list newest first
// ({language: submission}; a submission from before Numba is CUDA C).
export function newestByLanguage(submissions) {
  const newest = {};
  for (const s of submissions || []) {
    const language = s.language || 'cuda';
    if (!newest[language]) newest[language] = s;
  }
  return newest;
}

// The language the page opens in: the one the user chose last, else that
// of their newest submission, else CUDA C; always one the exercise takes.
export function initialLanguage(exercise, remembered, newest) {
  const taken = languagesOf(exercise);
  for (const candidate of [remembered, newest && (newest.language || 'cuda')]) {
    if (candidate && taken.includes(candidate)) return candidate;
  }
  return taken[0];
}

// What a kernel in `language` starts from: the exercise's starter
// (starter.cu, starter.py), else, in Numba, one made from the kernels'
// Numba forms.
export function starterFor(exercise, language) {
  const given = exercise.starters && exercise.starters[language];
  if (typeof given === 'string') return given;
  if (language !== 'numba') return exercise.starter || '';
  const kernels = (exercise.forms && exercise.forms.numba) || [];
  return ['from numba import cuda\n',
    ...kernels.map((k) => `\n@cuda.jit\ndef ${k.form}:\n    pass\n`)].join('\n');
}

// What the student must define in `language`, one entry per kernel:
// {code, types}: the C signature; or the Numba form, and the types numba
// compiles it for.
export function formsOf(exercise, language) {
  const forms = (exercise.forms && exercise.forms[language]) || [];
  if (language === 'numba') return forms.map((f) => ({ code: `def ${f.form}`, types: f.signature }));
  return forms.map((f) => ({ code: f.signature, types: null }));
}

// The exercise's host form in `language` (Numba only), a module's other
// way to answer: {code: 'def create_hidden_layer(n, …)', returns: 'out'};
// null where it declares none.
export function hostFormOf(exercise, language) {
  const host = language === 'numba' && exercise.forms && exercise.forms.numba_host;
  return host ? { code: `def ${host.form}`, returns: host.returns } : null;
}
