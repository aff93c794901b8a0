// The exercise page's code editor: CodeMirror 6 with C++ highlighting
// (CUDA is C++) or Python's (a Numba kernel), switched with setLanguage,
// line numbers, the diagnostics of a grading marked at their lines, Tab to
// indent (Escape, then Tab, leaves the editor), and Ctrl/Cmd+Enter to
// submit. The Makefile bundles it with esbuild into build/web/editor.js;
// web/static/editor_plain.js has the same interface for when the bundle is
// missing.

import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { cpp } from '@codemirror/lang-cpp';
import { python } from '@codemirror/lang-python';
import {
  bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting,
} from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { Compartment, Prec } from '@codemirror/state';
import {
  drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, keymap, lineNumbers,
} from '@codemirror/view';

// What a kernel needs, no more: numbered lines, highlighting, undo,
// bracket matching, auto-indent (a smaller bundle than basicSetup).
const setup = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  drawSelection(),
  indentOnInput(),
  syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
  bracketMatching(),
  highlightActiveLine(),
  keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
];

export const kind = 'codemirror';

const SEVERITIES = { error: 'error', warning: 'warning', note: 'info', info: 'info' };

// A submission language's highlighting: 'cuda' (CUDA C++) or 'numba' (Python).
const LANGUAGES = { cuda: cpp, numba: python };
function highlighting(language) {
  return (LANGUAGES[language] || cpp)();
}

export function mount(parent, text, { onSubmit, label = 'Your kernel', language = 'cuda' } = {}) {
  const languageSlot = new Compartment();
  const submitKey = Prec.highest(keymap.of([{
    key: 'Mod-Enter',
    run: () => {
      if (onSubmit) onSubmit();
      return true;
    },
  }]));
  const view = new EditorView({
    doc: text,
    parent,
    extensions: [
      setup,
      languageSlot.of(highlighting(language)),
      lintGutter(),
      submitKey,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
  });

  // The document offset of a 1-based line and column, kept inside the text.
  function offsetOf(line, column) {
    const doc = view.state.doc;
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + Math.max(column - 1, 0), l.to);
  }

  return {
    kind,
    // 'cuda' or 'numba': how the text is highlighted and indented
    setLanguage(name) {
      view.dispatch({ effects: languageSlot.reconfigure(highlighting(name)) });
    },
    getText: () => view.state.doc.toString(),
    setText(value) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    // marks: [{line, column, severity, message}]
    setMarks(marks) {
      const diagnostics = marks
        .filter((m) => m.line > 0 && m.line <= view.state.doc.lines)
        .map((m) => {
          const from = offsetOf(m.line, m.column || 1);
          return {
            from,
            to: Math.max(from, view.state.doc.lineAt(from).to),
            severity: SEVERITIES[m.severity] || 'error',
            message: m.message,
          };
        });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    goTo(line) {
      view.dispatch({ selection: { anchor: offsetOf(line, 1) }, scrollIntoView: true });
      view.focus();
    },
    focus: () => view.focus(),
  };
}
