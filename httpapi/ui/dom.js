// h builds DOM nodes: h('a', {href, class, onclick}, child, ...). Children
// are nodes or text (never parsed as HTML), arrays are flattened, and
// null, undefined and false are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value' || k === 'checked' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// replace empties el and fills it with children.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// debounce delays f until ms have passed without another call; cancel()
// drops a pending call.
export function debounce(f, ms) {
  let timer;
  const d = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => f(...args), ms);
  };
  d.cancel = () => clearTimeout(timer);
  return d;
}
