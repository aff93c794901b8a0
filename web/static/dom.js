// Building the page's elements. Text always goes in as text nodes, never
// as HTML, so a name or a source holding "<script>" shows as those
// characters. The one exception, an exercise statement, is HTML the server
// rendered from Markdown in cmark's safe mode (see exercise.js).

// h('a', {href: '/x', class: 'y', onclick: fn}, 'text', child, [more]) -> element
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Empties an element and fills it with children.
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

// A link the router follows without reloading the page.
export function link(href, ...children) {
  return h('a', { href, 'data-link': true }, ...children);
}

export function table(headers, rows, caption) {
  return h('div', { class: 'table-wrap' },
    h('table', {},
      caption ? h('caption', {}, caption) : null,
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)));
}

export function formatDate(ms) {
  if (ms === null || ms === undefined) return '';
  return new Date(ms).toLocaleString();
}
