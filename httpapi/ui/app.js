// The flagpole explorer: a single page over the public API. Routes live in
// the URL hash (#/?sort=total&region=TR, #/flag/SLUG?days=30) so the back
// button, reloads and shared links work. No build step: plain modules.
import { api, ApiError, getKey, setKey, onQuota } from './api.js';
import {
  t, tn, lang, setLang, onLang, LANGS, langName, text, category, context, region,
  num, compact, signed, percent, date,
} from './i18n.js';
import { h, replace, debounce } from './dom.js';
import { drawTrend } from './chart.js';

const SORTS = ['net', 'total', 'controversial', 'newest'];
const DEFAULT_ORDER = { net: 'asc', total: 'desc', controversial: 'desc', newest: 'desc' };
const DOMINANTS = ['', 'red', 'green', 'yellow'];
const LIMITS = [10, 20, 50, 100];
const DAYS = [7, 30, 90];
const SEARCH_LIMIT = 50;

const $ = (id) => document.getElementById(id);
const viewEl = $('view');

let mounted = null; // the current view: {name, update(route), relabel(), reload(), destroy()}
let lastListHash = '#/';

// ---------- routing ----------

function parseRoute() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
  const m = path.match(/^\/flag\/([^/]+)\/?$/);
  if (m) return { name: 'flag', slug: decodeURIComponent(m[1]), params };
  return { name: 'list', params };
}

function render() {
  const route = parseRoute();
  if (!getKey()) {
    mountWelcome();
    return;
  }
  if (notice.kind === 'nokey') clearNotice();
  drawKeyArea();
  if (mounted && mounted.name === route.name) {
    mounted.update(route);
    return;
  }
  unmount();
  mounted = route.name === 'flag' ? flagView(route) : listView(route);
}

function unmount() {
  if (mounted) mounted.destroy();
  mounted = null;
}

function listHash(params) {
  const s = params.toString();
  return '#/' + (s ? '?' + s : '');
}

// ---------- notices: missing key, 401, 429, ... ----------

const notice = { kind: '', build: null, timer: 0, retries: new Set() };

function showNotice(kind, build, action) {
  clearInterval(notice.timer);
  notice.kind = kind;
  notice.build = build;
  notice.action = action;
  drawNotice();
}

function drawNotice() {
  const el = $('notice');
  if (!notice.kind) {
    el.hidden = true;
    el.removeAttribute('data-kind');
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  el.dataset.kind = notice.kind;
  const tone = notice.kind === 'nokey' ? 'info' : notice.kind === 'ratelimited' || notice.kind === 'unavailable' ? 'warn' : 'error';
  el.className = 'notice ' + tone;
  replace(el,
    h('span', { class: 'notice-icon', 'aria-hidden': 'true' }, tone === 'info' ? 'i' : '!'),
    h('span', { class: 'notice-text', id: 'notice-text' }, notice.build()),
    notice.action || null,
    notice.kind !== 'nokey' && h('button', {
      class: 'notice-close', type: 'button', title: t('notice.dismiss'), 'aria-label': t('notice.dismiss'),
      onclick: clearNotice,
    }, '×'),
  );
}

function clearNotice() {
  clearInterval(notice.timer);
  notice.kind = '';
  notice.retries.clear();
  drawNotice();
}

// settleNotice clears, after a success, a message that no longer holds; a
// countdown (429, 503) stays until its retries have run.
function settleNotice() {
  if (notice.kind && !['nokey', 'ratelimited', 'unavailable'].includes(notice.kind)) clearNotice();
}

// countdown shows a message with the seconds left, then runs every retry
// registered while it was counting.
function countdown(kind, seconds, message, retry) {
  notice.retries.add(retry);
  if (notice.kind === kind && notice.timer) return;
  let left = seconds;
  showNotice(kind, () => message(left));
  notice.timer = setInterval(() => {
    left -= 1;
    if (left > 0) {
      $('notice-text').textContent = message(left);
      return;
    }
    clearInterval(notice.timer);
    notice.timer = 0;
    const retries = [...notice.retries];
    clearNotice();
    for (const f of retries) f();
  }, 1000);
}

// failed turns an API error into the right message; retry reloads what failed.
function failed(err, retry) {
  if (err && err.name === 'AbortError') return;
  if (!(err instanceof ApiError)) {
    showNotice('error', () => t('notice.error', { status: '—', detail: String(err && err.message) }));
    return;
  }
  switch (err.kind) {
    case 'nokey':
      showNotice('nokey', () => t('notice.nokey'));
      openKeyForm();
      break;
    case 'badkey':
      $('key-chip').classList.add('bad');
      showNotice('badkey', () => t('notice.badkey'));
      openKeyForm();
      break;
    case 'ratelimited':
      countdown('ratelimited', err.retryAfter, (s) => (err.limit
        ? t('notice.ratelimited', { limit: err.limit, s })
        : t('notice.ratelimitedNoLimit', { s })), retry);
      break;
    case 'unavailable':
      countdown('unavailable', err.retryAfter, (s) => t('notice.unavailable', { s }), retry);
      break;
    case 'network':
      showNotice('network', () => t('notice.network'),
        h('button', { class: 'btn small', type: 'button', onclick: () => { clearNotice(); retry(); } }, t('glance.refresh')));
      break;
    default:
      showNotice('error', () => t('notice.error', { status: err.status, detail: err.detail }));
  }
}

// ---------- the key ----------

function maskKey(k) {
  return k.length > 12 ? k.slice(0, 8) + '…' + k.slice(-4) : k;
}

function drawKeyArea() {
  const key = getKey();
  $('key-chip').hidden = !key;
  $('key-change').hidden = !key;
  $('key-masked').textContent = key ? maskKey(key) : '';
  if (!key) $('quota').hidden = true;
}

function openKeyForm() {
  const form = $('key-form');
  if (getKey()) $('key-drawer').append(form);
  $('key-drawer').hidden = !getKey();
  form.hidden = false;
  $('key-forget').hidden = !getKey();
  $('key-cancel').hidden = !getKey();
  const input = $('key-input');
  if (!input.value) input.value = getKey();
  input.focus();
  input.select();
}

function closeKeyForm() {
  $('key-drawer').hidden = true;
}

function useKey(key) {
  setKey(key);
  const q = $('quota');
  q.hidden = true;
  delete q.dataset.limit;
  $('key-chip').classList.remove('bad');
  meta = null;
  clearNotice();
  closeKeyForm();
  drawKeyArea();
  unmount();
  render();
}

function wireKeyForm() {
  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const key = $('key-input').value.trim();
    if (!key) {
      showNotice('nokey', () => t('notice.nokey'));
      $('key-input').focus();
      return;
    }
    useKey(key);
  });
  $('key-change').addEventListener('click', () => {
    if ($('key-drawer').hidden) openKeyForm();
    else closeKeyForm();
  });
  $('key-cancel').addEventListener('click', closeKeyForm);
  $('key-forget').addEventListener('click', () => {
    $('key-input').value = '';
    useKey('');
  });
  $('key-reveal').addEventListener('click', () => {
    const input = $('key-input');
    input.type = input.type === 'password' ? 'text' : 'password';
    $('key-reveal').setAttribute('aria-pressed', String(input.type === 'text'));
  });
  onQuota(({ limit, remaining }) => {
    const q = $('quota');
    $('key-chip').classList.remove('bad');
    q.hidden = false;
    q.textContent = t('quota', { r: num(remaining), l: num(limit) });
    q.classList.toggle('low', remaining < Math.max(5, limit / 6));
    q.dataset.remaining = String(remaining);
    q.dataset.limit = String(limit);
  });
}

// ---------- welcome (no key yet) ----------

function mountWelcome() {
  unmount();
  const form = $('key-form');
  const slot = h('div', { class: 'welcome-form' });
  const card = h('section', { class: 'welcome card' },
    h('div', { class: 'welcome-flags', 'aria-hidden': 'true' },
      h('span', { class: 'pennant red' }), h('span', { class: 'pennant yellow' }), h('span', { class: 'pennant green' })),
    h('h1', { id: 'welcome-title' }, t('welcome.title')),
    h('p', { class: 'lead' }, t('welcome.lead')),
    slot,
    h('p', { class: 'muted how' }, ...fill(t('welcome.how'), {
      demo: h('code', {}, 'flagpole serve --demo'),
      create: h('code', {}, 'flagpole keys create --name NAME'),
    })),
    h('p', { class: 'docs-link' },
      h('a', { href: '/api/public/docs', class: 'btn ghost' }, t('welcome.docs'), ' →'),
      h('span', { class: 'muted' }, ' ', t('welcome.docsNote'))),
  );
  replace(viewEl, card);
  slot.append(form);
  form.hidden = false;
  $('key-forget').hidden = true;
  $('key-cancel').hidden = true;
  $('key-drawer').hidden = true;
  showNotice('nokey', () => t('notice.nokey'));
  mounted = { name: 'welcome', update() {}, relabel: mountWelcome, reload() {}, destroy() { $('key-drawer').append(form); form.hidden = true; } };
}

// fill splits a translated sentence at {name} and puts nodes in place.
function fill(sentence, nodes) {
  return sentence.split(/(\{\w+\})/).map((part) => {
    const m = part.match(/^\{(\w+)\}$/);
    return m && nodes[m[1]] ? nodes[m[1]] : part;
  });
}

// ---------- shared pieces ----------

function badge(dominant) {
  return h('span', { class: 'badge ' + dominant, title: t('list.dominant') }, t('dom.' + dominant));
}

function voteBar(votes, big) {
  const bar = h('div', { class: 'votebar' + (big ? ' big' : ''), role: 'img',
    'aria-label': `${num(votes.red)} ${t('flag.red')}, ${num(votes.green)} ${t('flag.green')}` });
  const red = h('span', { class: 'r' });
  const green = h('span', { class: 'g' });
  const share = votes.total ? (votes.red / votes.total) * 100 : 50;
  red.style.width = share + '%';
  green.style.width = 100 - share + '%';
  bar.append(red, green);
  return bar;
}

function regionChip(code) {
  return h('span', { class: 'chip region' }, code ? [h('b', { class: 'code' }, code), ' '] : null, region(code));
}

function flagItem(f) {
  const v = f.votes;
  return h('li', { class: 'flag', dataset: { slug: f.slug, dominant: f.dominant } },
    h('a', { class: 'flag-link', href: '#/flag/' + encodeURIComponent(f.slug) },
      badge(f.dominant),
      h('span', { class: 'flag-main' },
        h('span', { class: 'flag-text' }, text(f.text)),
        h('span', { class: 'flag-meta' },
          h('span', { class: 'chip' }, category(f.category)),
          regionChip(f.region),
          f.createdAt && h('span', { class: 'when' }, date(f.createdAt)))),
      h('span', { class: 'flag-votes' },
        voteBar(v),
        h('span', { class: 'vote-nums' },
          h('span', { class: 'r', title: num(v.red) + ' ' + t('flag.red') }, compact(v.red)),
          h('span', { class: 'g', title: num(v.green) + ' ' + t('flag.green') }, compact(v.green)),
          h('span', { class: 'n', title: t('flag.net') }, signed(v.net))))));
}

function select(id, label, options, value, onchange) {
  return h('label', { class: 'field' },
    h('span', { class: 'field-label' }, label),
    h('select', { id, onchange: (ev) => onchange(ev.target.value) },
      options.map(([v, l]) => h('option', { value: v, selected: v === value }, l))));
}

// ---------- the glance: stats, categories, regions ----------

let meta = null; // {promise, data}

function loadMeta(force) {
  if (meta && !force) return meta.promise;
  const m = { data: null };
  m.promise = Promise.all([api('stats'), api('categories'), api('regions')]).then(
    ([stats, categories, regions]) => {
      m.data = { stats, categories: categories.data, regions: regions.data };
      return m.data;
    },
    (err) => {
      if (meta === m) meta = null;
      throw err;
    });
  meta = m;
  return m.promise;
}

function glanceCards(stats) {
  const f = stats.flags;
  const split = h('div', { class: 'splitbar', role: 'img',
    'aria-label': `${f.redDominant} ${t('dom.red')}, ${f.greenDominant} ${t('dom.green')}, ${f.mixed} ${t('dom.yellow')}` });
  for (const [cls, n] of [['r', f.redDominant], ['y', f.mixed], ['g', f.greenDominant]]) {
    const s = h('span', { class: cls });
    s.style.width = (f.total ? (n / f.total) * 100 : 0) + '%';
    split.append(s);
  }
  const v = stats.votes;
  return [
    h('div', { class: 'stat' },
      h('div', { class: 'stat-label' }, t('glance.flags')),
      h('div', { class: 'stat-value', id: 'stat-flags' }, num(f.total)),
      h('div', { class: 'stat-sub' }, '+', num(f.addedLast24h), ' · ', t('glance.new'))),
    h('div', { class: 'stat wide' },
      h('div', { class: 'stat-label' }, t('glance.split')),
      split,
      h('div', { class: 'stat-sub legend' },
        h('span', { class: 'dot r' }), num(f.redDominant), ' ', t('dom.red'),
        h('span', { class: 'dot y' }), num(f.mixed), ' ', t('dom.yellow'),
        h('span', { class: 'dot g' }), num(f.greenDominant), ' ', t('dom.green'))),
    h('div', { class: 'stat' },
      h('div', { class: 'stat-label' }, t('glance.votes')),
      h('div', { class: 'stat-value', title: num(v.total) }, compact(v.total)),
      h('div', { class: 'stat-sub' }, t('glance.votesRecent', { d1: num(v.last24h), d7: num(v.last7d), d30: num(v.last30d) }))),
    h('div', { class: 'stat' },
      h('div', { class: 'stat-label' }, t('glance.users')),
      h('div', { class: 'stat-value' }, num(stats.users.total)),
      h('div', { class: 'stat-sub' }, t('glance.generated', { time: date(stats.generatedAt, true) }))),
  ];
}

function countList(items, label, key, active, onpick) {
  const max = Math.max(1, ...items.map((i) => i.count));
  return items.map((it) => {
    const k = key(it);
    const bar = h('span', { class: 'count-bar' });
    bar.style.width = (it.count / max) * 100 + '%';
    return h('li', {},
      h('button', {
        type: 'button', class: 'count-row' + (k === active ? ' active' : ''), 'aria-pressed': String(k === active),
        onclick: () => onpick(k === active ? '' : k),
      },
      h('span', { class: 'count-name' }, label(it)),
      h('span', { class: 'count-num' }, num(it.count)),
      bar));
  });
}

// ---------- the list ----------

function listView(route) {
  let params = route.params;
  let data = null; // {mode: 'list'|'search'|'short', body}
  let ctrl = null;
  let scrollUp = false; // after paging, show the top of the new page
  const el = {
    stats: h('section', { class: 'glance', id: 'glance', 'aria-label': t('glance.title') }),
    cats: h('ul', { class: 'counts', id: 'categories' }),
    regions: h('ul', { class: 'counts', id: 'regions' }),
    q: h('input', {
      id: 'q', type: 'search', autocomplete: 'off', spellcheck: 'false', enterkeyhint: 'search',
      value: params.get('q') || '',
    }),
    filters: h('div', { class: 'filters', id: 'filters' }),
    summary: h('div', { class: 'summary', id: 'summary', 'aria-live': 'polite' }),
    list: h('ol', { class: 'flags', id: 'flags' }),
    pager: h('nav', { class: 'pager', id: 'pager' }),
    catsTitle: h('h2', {}),
    regionsTitle: h('h2', {}),
    refresh: h('button', { type: 'button', class: 'btn ghost small', onclick: () => drawMeta(true) }),
  };
  const clearBtn = h('button', { type: 'button', class: 'search-clear', onclick: () => { el.q.value = ''; onSearch(); el.q.focus(); } }, '×');
  el.searchBox = h('div', { class: 'search' }, searchIcon(), el.q, clearBtn);
  replace(viewEl,
    el.stats,
    h('div', { class: 'layout' },
      h('aside', { class: 'side' },
        h('section', { class: 'card panel' }, el.catsTitle, el.cats),
        h('section', { class: 'card panel' }, el.regionsTitle, el.regions),
        el.refresh),
      h('section', { class: 'main' },
        el.searchBox, el.filters,
        el.results = h('div', { class: 'card results' }, el.summary, el.list, el.pager))));

  const get = (k, d = '') => params.get(k) || d;
  const sort = () => (SORTS.includes(get('sort')) ? get('sort') : 'net');
  const order = () => get('order') || DEFAULT_ORDER[sort()];
  const limit = () => (LIMITS.includes(+get('limit')) ? +get('limit') : 20);
  const offset = () => Math.max(0, parseInt(get('offset', '0'), 10) || 0);

  function go(changes, keepOffset) {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === '' || v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    if (!keepOffset) p.delete('offset');
    else scrollUp = true;
    if (p.get('order') && p.get('order') === DEFAULT_ORDER[p.get('sort') || 'net']) p.delete('order');
    if (p.get('sort') === 'net') p.delete('sort');
    if (p.get('limit') === '20') p.delete('limit');
    location.hash = listHash(p);
  }

  const onSearch = debounce(() => {
    const p = new URLSearchParams(params);
    const q = el.q.value;
    if (q.trim()) p.set('q', q); else p.delete('q');
    p.delete('offset');
    history.replaceState(null, '', listHash(p));
    update({ params: p });
  }, 250);
  el.q.addEventListener('input', onSearch);
  el.q.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') { el.q.value = ''; onSearch(); } });

  function drawFilters() {
    const searching = data && data.mode === 'search';
    const cats = meta && meta.data ? meta.data.categories : [];
    const regs = meta && meta.data ? meta.data.regions : [];
    const seg = h('div', { class: 'seg', role: 'group', id: 'dominant' },
      DOMINANTS.map((d) => h('button', {
        type: 'button', class: 'seg-btn ' + (d || 'all'), 'aria-pressed': String(get('dominant') === d), dataset: { value: d },
        onclick: () => go({ dominant: d }),
      }, d ? h('span', { class: 'dot ' + d[0] }) : null, t('dom.' + (d || 'all')))));
    replace(el.filters,
      select('sort', t('list.sort'), SORTS.map((s) => [s, t('sort.' + s)]), sort(), (v) => go({ sort: v, order: '' })),
      h('label', { class: 'field' },
        h('span', { class: 'field-label' }, t('list.order')),
        h('select', { id: 'order', onchange: (ev) => go({ order: ev.target.value }) },
          ['asc', 'desc'].map((o) => h('option', { value: o, selected: o === order() },
            t('order.' + o) + ' · ' + t(`hint.${sort()}.${o}`))))),
      select('category', t('list.category'),
        [['', t('list.allCategories')], ...cats.map((c) => [c.slug, `${category(c.enum)} (${num(c.count)})`])],
        get('category'), (v) => go({ category: v })),
      select('region', t('list.region'),
        [['', t('list.allRegions')], ...regs.map((r) => [r.code ? r.code.toLowerCase() : 'world', `${region(r.code)} (${num(r.count)})`])],
        get('region'), (v) => go({ region: v })),
      h('div', { class: 'field' }, h('span', { class: 'field-label' }, t('list.dominant')), seg),
      select('limit', t('list.perPage'), LIMITS.map((n) => [String(n), String(n)]), String(limit()), (v) => go({ limit: v })),
    );
    el.filters.classList.toggle('off', searching);
    el.filters.inert = searching;
  }

  function drawSide() {
    el.catsTitle.textContent = t('glance.categories');
    el.regionsTitle.textContent = t('glance.regions');
    el.refresh.textContent = '↻ ' + t('glance.refresh');
    if (!meta || !meta.data) return;
    const m = meta.data;
    replace(el.stats, glanceCards(m.stats));
    replace(el.cats, countList(m.categories, (c) => category(c.enum), (c) => c.slug, get('category'), (v) => go({ category: v })));
    replace(el.regions, countList(m.regions, (r) => h('span', {}, h('b', { class: 'code' }, r.code || ''), ' ', region(r.code)),
      (r) => (r.code ? r.code.toLowerCase() : 'world'), get('region'), (v) => go({ region: v })));
  }

  function drawMeta(force) {
    if (force) el.refresh.disabled = true;
    loadMeta(force).then(() => { drawSide(); drawFilters(); }, (err) => failed(err, () => drawMeta(true)))
      .finally(() => { el.refresh.disabled = false; });
  }

  function drawResults() {
    el.q.placeholder = t('list.search');
    el.q.setAttribute('aria-label', t('list.searchLabel'));
    clearBtn.title = t('search.clear');
    clearBtn.hidden = !el.q.value;
    drawFilters();
    if (!data) return;
    const { mode, body } = data;
    el.summary.dataset.mode = mode;
    if (mode === 'search') {
      replace(el.summary,
        h('strong', {}, body.total ? tn('search.results', body.total, { q: body.q }) : t('search.none', { q: body.q })),
        body.total > body.count ? h('span', { class: 'muted' }, ' · ', t('search.showing', { n: num(body.count) })) : null,
        h('div', { class: 'muted small' }, t('search.filtersOff')));
    } else {
      const from = body.count ? body.offset + 1 : 0;
      replace(el.summary,
        h('strong', {}, t('list.range', { from: num(from), to: num(body.offset + body.count), total: num(body.total) })),
        h('span', { class: 'muted' }, ' · ', t('sort.' + body.sort), ', ', t(`hint.${body.sort}.${body.order}`)),
        mode === 'short' ? h('div', { class: 'muted small' }, t('search.tooShort')) : null);
    }
    replace(el.list, body.data.map(flagItem));
    if (scrollUp) {
      scrollUp = false;
      if (el.results.getBoundingClientRect().top < 70) el.results.scrollIntoView({ block: 'start' });
    }
    if (!body.data.length) {
      el.list.append(h('li', { class: 'empty' }, mode === 'search' ? t('search.none', { q: body.q }) : t('list.empty'),
        mode !== 'search' && params.toString() ? h('button', { class: 'btn ghost small', type: 'button', onclick: () => { location.hash = '#/'; } }, t('list.reset')) : null));
    }
    if (mode === 'search') {
      el.pager.hidden = true;
    } else {
      el.pager.hidden = false;
      const prev = Math.max(0, body.offset - body.limit);
      const next = body.offset + body.limit;
      replace(el.pager,
        h('button', { type: 'button', class: 'btn', id: 'prev', disabled: body.offset === 0, onclick: () => go({ offset: prev || '' }, true) }, t('list.prev')),
        h('span', { class: 'muted' }, t('list.range', { from: num(body.count ? body.offset + 1 : 0), to: num(body.offset + body.count), total: num(body.total) })),
        h('button', { type: 'button', class: 'btn', id: 'next', disabled: next >= body.total, onclick: () => go({ offset: next }, true) }, t('list.next')));
    }
  }

  async function load() {
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    const signal = ctrl.signal;
    const q = (params.get('q') || '').trim();
    el.list.classList.add('loading');
    try {
      let next;
      if (q.length >= 2) {
        next = { mode: 'search', body: await api('search', { q, limit: SEARCH_LIMIT }, { signal }) };
      } else {
        const body = await api('flags', {
          sort: sort(), order: get('order'), category: get('category'), region: get('region'),
          dominant: get('dominant'), limit: limit(), offset: offset() || '',
        }, { signal });
        next = { mode: q ? 'short' : 'list', body };
      }
      if (signal.aborted) return;
      data = next;
      settleNotice();
      drawResults();
    } catch (err) {
      if (err.name !== 'AbortError') {
        data = null;
        replace(el.summary, h('span', { class: 'muted' }, t('list.failed')));
        el.list.replaceChildren();
        el.pager.hidden = true;
      }
      failed(err, load);
    } finally {
      if (!signal.aborted) el.list.classList.remove('loading');
    }
  }

  function update(r) {
    params = r.params;
    lastListHash = listHash(params);
    if (document.activeElement !== el.q && el.q.value !== (params.get('q') || '')) el.q.value = params.get('q') || '';
    clearBtn.hidden = !el.q.value;
    drawFilters();
    drawSide();
    load();
  }

  lastListHash = listHash(params);
  replace(el.summary, t('list.loading'));
  drawSide();
  drawMeta(false);
  update(route);
  return {
    name: 'list',
    update,
    relabel() { drawSide(); drawResults(); },
    reload() { drawMeta(true); load(); },
    destroy() { if (ctrl) ctrl.abort(); },
  };
}

function searchIcon() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'search-icon');
  const c = document.createElementNS(ns, 'circle');
  c.setAttribute('cx', '11'); c.setAttribute('cy', '11'); c.setAttribute('r', '7');
  const l = document.createElementNS(ns, 'path');
  l.setAttribute('d', 'M20 20l-4-4');
  svg.append(c, l);
  return svg;
}

// ---------- one flag ----------

function flagView(route) {
  let slug = route.slug;
  let days = DAYS.includes(+route.params.get('days')) ? +route.params.get('days') : 30;
  let flag = null;
  let trend = null;
  let chart = null;
  let ctrl = null;
  let trendCtrl = null;
  const root = h('article', { class: 'flag-page' });
  const chartEl = h('div', { class: 'chart', id: 'chart' });
  const resize = new ResizeObserver(() => {
    if (chart && chartEl.clientWidth) chart.setSize({ width: chartEl.clientWidth, height: 300 });
  });
  resize.observe(chartEl);
  replace(viewEl, h('a', { class: 'back', id: 'back', href: lastListHash }, t('flag.back')), root);
  replace(root, h('div', { class: 'card loading-card' }, t('list.loading')));

  function draw() {
    viewEl.querySelector('#back').textContent = t('flag.back');
    if (!flag) return;
    const v = flag.votes;
    const pct = (n) => percent(v.total ? n / v.total : 0);
    const daysSeg = h('div', { class: 'seg', role: 'group', id: 'days' },
      DAYS.map((d) => h('button', {
        type: 'button', class: 'seg-btn', 'aria-pressed': String(d === days), dataset: { days: String(d) },
        onclick: () => { location.hash = '#/flag/' + encodeURIComponent(slug) + '?days=' + d; },
      }, t('flag.days', { n: d }))));
    const desc = text(flag.description);
    replace(root,
      h('header', { class: 'card flag-head' },
        h('div', { class: 'flag-tags' },
          badge(flag.dominant),
          h('span', { class: 'chip' }, category(flag.category)),
          regionChip(flag.region),
          (flag.contexts || []).map((c) => h('span', { class: 'chip soft' }, context(c)))),
        h('h1', { id: 'flag-title', lang: lang() }, text(flag.text)),
        desc && h('p', { class: 'desc', id: 'flag-desc' }, desc),
        h('div', { class: 'flag-votes-big' },
          h('div', { class: 'vote r' }, h('b', {}, num(v.red)), h('span', {}, t('flag.red'), ' · ', pct(v.red))),
          h('div', { class: 'vote g' }, h('b', {}, num(v.green)), h('span', {}, t('flag.green'), ' · ', pct(v.green))),
          h('div', { class: 'vote' }, h('b', {}, num(v.total)), h('span', {}, t('flag.total'))),
          h('div', { class: 'vote n' }, h('b', {}, signed(v.net)), h('span', {}, t('flag.net')))),
        voteBar(v, true)),
      h('section', { class: 'card trend' },
        h('div', { class: 'card-head' }, h('h2', {}, t('flag.trend')), daysSeg),
        chartEl,
        h('p', { class: 'muted small', id: 'trend-note' }, trend
          ? (trend.count ? t('flag.points', { n: num(trend.count) }) : t('flag.noTrend'))
          : t('list.loading'))),
      h('section', { class: 'card langs' },
        h('h2', {}, t('flag.languages')),
        h('dl', {}, LANGS.map((l) => [
          h('dt', { class: l === lang() ? 'current' : '' }, h('span', { class: 'lang-code' }, l.toUpperCase()), ' ', langName(l)),
          h('dd', { lang: l, class: l === lang() ? 'current' : '' }, flag.text[l] || '—',
            flag.description && flag.description[l] ? h('div', { class: 'muted small' }, flag.description[l]) : null),
        ]))),
      h('dl', { class: 'flag-facts muted small' },
        h('dt', {}, t('flag.created')), h('dd', {}, date(flag.createdAt, true)),
        h('dt', {}, 'slug'), h('dd', {}, h('code', {}, flag.slug)),
        h('dt', {}, 'id'), h('dd', {}, h('code', {}, flag.id))),
    );
    drawChart();
  }

  function drawChart() {
    if (chart) { chart.destroy(); chart = null; }
    if (!trend) { chartEl.replaceChildren(); return; }
    if (!trend.snapshots.length) {
      chartEl.dataset.points = '0';
      replace(chartEl, h('div', { class: 'chart-empty' }, t('flag.noTrend')));
      return;
    }
    // The chart needs a laid-out width; draw once the card is in the page.
    chart = drawTrend(chartEl, trend);
  }

  async function loadTrend() {
    if (trendCtrl) trendCtrl.abort();
    trendCtrl = new AbortController();
    const signal = trendCtrl.signal;
    try {
      const next = await api('flag/' + encodeURIComponent(slug) + '/trend', { days }, { signal });
      if (signal.aborted) return;
      trend = next;
      draw();
    } catch (err) {
      failed(err, loadTrend);
    }
  }

  async function load() {
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    const signal = ctrl.signal;
    flag = null;
    trend = null;
    try {
      flag = await api('flag/' + encodeURIComponent(slug), {}, { signal });
      if (signal.aborted) return;
      document.title = text(flag.text) + ' · flagpole';
      settleNotice();
      draw();
      await loadTrend();
    } catch (err) {
      if (err instanceof ApiError && err.kind === 'notfound') {
        replace(root, h('div', { class: 'card empty' }, t('flag.notFound')));
        return;
      }
      failed(err, load);
    }
  }

  function update(r) {
    const d = DAYS.includes(+r.params.get('days')) ? +r.params.get('days') : 30;
    if (r.slug !== slug) {
      slug = r.slug;
      days = d;
      load();
    } else if (d !== days) {
      days = d;
      trend = null;
      draw();
      loadTrend();
    }
  }

  load();
  return {
    name: 'flag',
    update,
    relabel() { draw(); if (flag) document.title = text(flag.text) + ' · flagpole'; },
    reload: load,
    destroy() {
      if (ctrl) ctrl.abort();
      if (trendCtrl) trendCtrl.abort();
      if (chart) chart.destroy();
      resize.disconnect();
      document.title = t('app.title');
    },
  };
}

// ---------- language and static text ----------

function applyStatic() {
  document.documentElement.lang = lang();
  if (!mounted || mounted.name !== 'flag') document.title = t('app.title');
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-placeholder]')) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of document.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.setAttribute('aria-pressed', String(b.dataset.lang === lang()));
    b.title = langName(b.dataset.lang);
  }
  const q = $('quota');
  if (q.dataset.limit) q.textContent = t('quota', { r: num(+q.dataset.remaining), l: num(+q.dataset.limit) });
  if (notice.kind) drawNotice();
}

function wireLang() {
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.addEventListener('click', () => setLang(b.dataset.lang));
  }
  onLang(() => {
    applyStatic();
    if (mounted) mounted.relabel();
  });
}

// ---------- start ----------

wireKeyForm();
wireLang();
applyStatic();
drawKeyArea();
window.addEventListener('hashchange', render);
window.addEventListener('storage', (ev) => {
  if (ev.key === 'flagpole.key') { meta = null; drawKeyArea(); unmount(); render(); }
});
render();
