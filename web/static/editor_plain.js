// The editor without its bundle: a text area with line numbers beside it.
// It has the interface of the CodeMirror editor (web/editor/editor.js), so
// the exercise page works the same, only plainer, when the bundle was not
// built.

import { h } from './dom.js';

export const kind = 'plain';

export function mount(parent, text, { onSubmit, label = 'Your kernel', language = 'cuda' } = {}) {
  const numbers = h('pre', { class: 'gutter', 'aria-hidden': 'true' });
  const area = h('textarea', {
    class: 'code', spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off',
    'aria-label': label, wrap: 'off',
  });
  const box = h('div', { class: 'plain-editor', dataset: { language } }, numbers, area);
  let marked = new Map();

  function drawNumbers() {
    const lines = area.value.split('\n').length;
    const out = [];
    for (let i = 1; i <= lines; i++) out.push(marked.has(i) ? `${i} ●` : String(i));
    numbers.textContent = out.join('\n');
  }
  area.addEventListener('input', drawNumbers);
  area.addEventListener('scroll', () => { numbers.scrollTop = area.scrollTop; });
  area.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && onSubmit) {
      event.preventDefault();
      onSubmit();
    } else if (event.key === 'Tab' && !event.shiftKey && !event.ctrlKey && !event.altKey) {
      // Tab indents; Escape then Tab leaves the field (keyboard users are not trapped).
      if (area.dataset.escaped === '1') { area.dataset.escaped = ''; return; }
      event.preventDefault();
      area.setRangeText('    ', area.selectionStart, area.selectionEnd, 'end');
      drawNumbers();
    } else if (event.key === 'Escape') {
      area.dataset.escaped = '1';
    }
  });
  area.value = text;
  parent.append(box);
  drawNumbers();

  return {
    kind,
    // No highlighting here: the language is only noted (for styles and tests).
    setLanguage(name) { box.dataset.language = name; },
    getText: () => area.value,
    setText(value) { area.value = value; drawNumbers(); },
    // marks: [{line, column, severity, message}]
    setMarks(marks) {
      marked = new Map(marks.filter((m) => m.line > 0).map((m) => [m.line, m]));
      drawNumbers();
    },
    goTo(line) {
      const lines = area.value.split('\n');
      let offset = 0;
      for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
      area.focus();
      area.setSelectionRange(offset, offset);
    },
    focus: () => area.focus(),
  };
}
