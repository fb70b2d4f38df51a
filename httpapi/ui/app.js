// The flagpole explorer: a single page over the public API. Routes live in
// the URL hash (#/?sort=total&region=TR, #/flag/SLUG?days=30) so the back
// button, reloads and shared links work. No build step: plain modules.
//
// It spares the key: a view costs at most one request where the API allows
// it (the list: /flags or /search; a flag: /flag and its trend, which no
// single call gives), what is loaded is reused (api.js keeps every answer
// with its ETag), the categories and regions load only when the filters or
// the overview are opened, a search waits for a pause in the typing, and the
// budget is read from the free /api/public/rate_limit. A flag on screen
// follows its votes live through one stream (live.js), which costs one
// request when it opens and none for what it sends.
import { api, cached, keep, ApiError, getKey, setKey, onQuota, refreshQuota } from './api.js';
import {
  t, tn, lang, setLang, onLang, LANGS, langName, text, category, context, region,
  num, compact, signed, percent, date, day,
} from './i18n.js';
import { h, replace } from './dom.js';
import { drawTrend } from './chart.js';
import { follow } from './live.js';

const SORTS = ['net', 'total', 'controversial', 'newest'];
const DEFAULT_ORDER = { net: 'asc', total: 'desc', controversial: 'desc', newest: 'desc' };
const DOMINANTS = ['', 'red', 'green', 'yellow'];
const CATEGORY_ENUMS = ['CHARACTER', 'BEHAVIORAL', 'CULTURAL', 'RELATIONSHIP', 'COMMUNICATION', 'LIFESTYLE', 'FINANCIAL', 'SOCIAL'];
const LIMITS = [10, 20, 50, 100];
const DAYS = [7, 30, 90];
const SEARCH_LIMIT = 50;
const SEARCH_PAUSE = 400; // ms without typing before a search is sent (at least)
const SEARCH_MIN = 2; // characters (code points) after trimming, as the API wants

// How long an answer is reused without asking the server again (ms). The
// server's snapshot moves every few seconds; the lists of categories and
// regions hardly ever.
const FRESH = { list: 30_000, flag: 30_000, trend: 120_000, stats: 60_000, lists: 10 * 60_000 };
// A screen reader hears the live counts at most this often (ms): the last
// change of each pause, not every change.
const SAY_EVERY = 15_000;

const $ = (id) => document.getElementById(id);
const viewEl = $('view');

let mounted = null; // the current view: {name, update(route), relabel(), reload(), destroy()}
let lastListHash = '#/';
// Flags seen in lists and searches, by slug: a flag page shows them at once.
const seen = new Map();
// Whether the filters and the overview are open, remembered for this tab; on
// a small screen they start folded, so that the first flag shows at once.
const wide = window.matchMedia('(min-width: 561px)').matches;
const panels = {
  filters: wide && sessionGet('flagpole.filters') === 'open',
  overview: wide && sessionGet('flagpole.overview') === 'open',
};

function sessionGet(k) { try { return sessionStorage.getItem(k); } catch { return null; } }
function sessionSet(k, v) { try { sessionStorage.setItem(k, v); } catch { /* storage off */ } }

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

let quotaRead = false;

function render() {
  const route = parseRoute();
  if (!getKey()) {
    mountWelcome();
    return;
  }
  if (notice.kind === 'nokey') clearNotice();
  drawKeyArea();
  if (!quotaRead) { quotaRead = true; refreshQuota(); }
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
      $('key-change').classList.add('bad');
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

// ---------- the key and the budget ----------

function maskKey(k) {
  return k.length > 12 ? '…' + k.slice(-4) : k;
}

function drawKeyArea() {
  const key = getKey();
  $('key-change').hidden = !key;
  $('key-masked').textContent = key ? maskKey(key) : '';
  if (!key) $('quota').hidden = true;
}

function openKeyForm() {
  const form = $('key-form');
  if (getKey()) $('key-drawer').append(form);
  $('key-drawer').hidden = !getKey();
  $('key-change').setAttribute('aria-expanded', String(!$('key-drawer').hidden));
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
  $('key-change').setAttribute('aria-expanded', 'false');
}

function useKey(key) {
  setKey(key);
  const q = $('quota');
  q.hidden = true;
  delete q.dataset.limit;
  $('key-change').classList.remove('bad');
  clearNotice();
  closeKeyForm();
  drawKeyArea();
  unmount();
  quotaRead = false;
  render();
}

function drawQuota(b) {
  const q = $('quota');
  if (!b) return;
  q.hidden = false;
  q.textContent = t('quota', { r: num(b.remaining), l: num(b.limit) });
  const resetAt = b.reset ? new Intl.DateTimeFormat(lang(), { timeStyle: 'medium' }).format(b.reset * 1000) : '';
  q.title = t('quota.title') + (b.remaining < b.limit && resetAt ? ' · ' + t('quota.reset', { time: resetAt }) : '');
  q.classList.toggle('low', b.remaining < Math.max(3, b.limit / 6));
  q.dataset.remaining = String(b.remaining);
  q.dataset.limit = String(b.limit);
  q.dataset.source = b.source;
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
  onQuota((b) => {
    $('key-change').classList.remove('bad');
    drawQuota(b);
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

function badge(dominant, id) {
  return h('span', { class: 'badge ' + dominant, id }, t('dom.' + dominant));
}

function voteBar(votes, big) {
  const bar = h('div', { class: 'votebar' + (big ? ' big' : ''), role: 'img', id: big ? 'votebar' : null },
    h('span', { class: 'r' }), h('span', { class: 'g' }));
  setVoteBar(bar, votes);
  return bar;
}

// setVoteBar moves a vote bar to these votes, in place.
function setVoteBar(bar, votes) {
  bar.setAttribute('aria-label', `${num(votes.red)} ${t('flag.red')}, ${num(votes.green)} ${t('flag.green')}`);
  const share = votes.total ? (votes.red / votes.total) * 100 : 50;
  bar.querySelector('.r').style.width = share + '%';
  bar.querySelector('.g').style.width = 100 - share + '%';
}

function regionChip(code) {
  return h('span', { class: 'chip region' }, code ? [h('b', { class: 'code' }, code), ' '] : null, region(code));
}

// marked shows s with the code-point ranges of spans in <mark>.
function marked(s, spans) {
  const cps = Array.from(s);
  const out = [];
  let at = 0;
  for (const m of [...spans].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(cps.length, m.start | 0));
    const end = Math.max(start, Math.min(cps.length, m.end | 0));
    if (start > at) out.push(cps.slice(at, start).join(''));
    const kind = ['prefix', 'stem', 'typo'].includes(m.kind) ? m.kind : '';
    if (end > start) {
      out.push(h('mark', { class: 'hit ' + kind, title: kind ? t('search.kind.' + kind) : null, dataset: { kind: m.kind || '' } },
        cps.slice(start, end).join('')));
    }
    at = end;
  }
  if (at < cps.length) out.push(cps.slice(at).join(''));
  return out;
}

// hitText is a search hit's text with its matched words marked: in the page's
// language when the words matched there, else in the language they matched
// in, named.
function hitText(f) {
  const m = f.matches && typeof f.matches === 'object' ? f.matches : null;
  const here = lang();
  if (!m) return h('span', { class: 'flag-text' }, text(f.text));
  if (Array.isArray(m[here]) && m[here].length && f.text[here]) {
    return h('span', { class: 'flag-text' }, marked(f.text[here], m[here]));
  }
  const other = LANGS.find((l) => Array.isArray(m[l]) && m[l].length && f.text[l]);
  if (!other) return h('span', { class: 'flag-text' }, text(f.text));
  return [
    h('span', { class: 'flag-text' }, text(f.text)),
    h('span', { class: 'flag-match', lang: other },
      h('span', { class: 'lang-code', title: t('search.matchedIn', { lang: langName(other) }) }, other.toUpperCase()), ' ',
      marked(f.text[other], m[other]),
      h('span', { class: 'sr-only' }, ' (' + t('search.matchedIn', { lang: langName(other) }) + ')')),
  ];
}

function flagItem(f) {
  const v = f.votes;
  seen.set(f.slug, f);
  return h('li', { class: 'flag', dataset: { slug: f.slug, dominant: f.dominant } },
    h('a', { class: 'flag-link', href: '#/flag/' + encodeURIComponent(f.slug) },
      badge(f.dominant),
      h('span', { class: 'flag-main' },
        hitText(f),
        h('span', { class: 'flag-meta' },
          h('span', { class: 'chip' }, category(f.category)),
          regionChip(f.region),
          f.createdAt && h('span', { class: 'when' }, date(f.createdAt)))),
      h('span', { class: 'flag-votes' },
        voteBar(v),
        h('span', { class: 'vote-nums' },
          h('span', { class: 'r' }, h('span', { class: 'sr-only' }, t('flag.red') + ' '), compact(v.red)),
          h('span', { class: 'g' }, h('span', { class: 'sr-only' }, t('flag.green') + ' '), compact(v.green)),
          h('span', { class: 'n' }, h('span', { class: 'sr-only' }, t('flag.net') + ' '), signed(v.net))))));
}

function select(id, label, options, value, onchange) {
  return h('label', { class: 'field', for: id },
    h('span', { class: 'field-label' }, label),
    h('select', { id, onchange: (ev) => onchange(ev.target.value) },
      options.map(([v, l]) => h('option', { value: v, selected: v === value }, l))));
}

// ---------- categories, regions and stats: on demand, cached ----------

// loadLists answers {categories, regions}, from the cache for ten minutes
// (then revalidated with If-None-Match): two requests at most per session.
function loadLists(force) {
  const o = { maxAge: force ? 0 : FRESH.lists };
  return Promise.all([api('categories', {}, o), api('regions', {}, o)])
    .then(([c, r]) => ({ categories: c.data, regions: r.data }));
}

function cachedLists() {
  const c = cached('categories', {}, Infinity);
  const r = cached('regions', {}, Infinity);
  return { categories: c ? c.data : null, regions: r ? r.data : null };
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
  let lists = cachedLists();
  let stats = cached('stats', {}, Infinity) || null;
  const el = {
    title: h('h1', { class: 'page-title', id: 'page-title' }),
    q: h('input', {
      id: 'q', type: 'search', autocomplete: 'off', spellcheck: 'false', enterkeyhint: 'search',
      value: params.get('q') || '',
    }),
    toolbar: h('div', { class: 'toolbar', id: 'toolbar' }),
    filters: h('div', { class: 'filters', id: 'filters' }),
    overview: h('section', { class: 'overview', id: 'overview', 'aria-labelledby': 'overview-title' }),
    summary: h('div', { class: 'summary', id: 'summary', 'aria-live': 'polite' }),
    list: h('ol', { class: 'flags', id: 'flags' }),
    pager: h('nav', { class: 'pager', id: 'pager' }),
  };
  const clearBtn = h('button', {
    type: 'button', class: 'search-clear',
    onclick: () => { el.q.value = ''; searchNow(); el.q.focus(); },
  }, '×');
  el.searchBox = h('div', { class: 'search', role: 'search' }, searchIcon(), el.q, clearBtn);
  replace(viewEl,
    h('div', { class: 'list-head' }, el.title, el.searchBox, el.toolbar),
    el.filters,
    el.overview,
    el.results = h('div', { class: 'card results' }, el.summary, el.list, el.pager));

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

  // The search waits for a pause in the typing and for two characters; a
  // shorter query shows the list (already loaded: no request).
  const query = () => el.q.value.trim();
  function searchNow() {
    searchLater.cancel();
    const p = new URLSearchParams(params);
    const q = el.q.value;
    if (q.trim()) p.set('q', q); else p.delete('q');
    p.delete('offset');
    if (p.toString() === params.toString()) return;
    history.replaceState(null, '', listHash(p));
    update({ params: p });
  }
  // The pause waited for follows the typing: 400 ms, or two and a half
  // times the usual gap between this person's keys (at most 1.2 s), so a
  // slow typist is not sent a search at every letter.
  const gaps = [];
  let lastKey = 0;
  let timer = 0;
  const searchLater = () => {
    const now = performance.now();
    if (lastKey && now - lastKey < 3000) gaps.push(now - lastKey);
    if (gaps.length > 6) gaps.shift();
    lastKey = now;
    const typical = gaps.length ? [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] : 0;
    clearTimeout(timer);
    timer = setTimeout(searchNow, Math.min(1200, Math.max(SEARCH_PAUSE, typical * 2.5)));
  };
  searchLater.cancel = () => clearTimeout(timer);
  el.q.addEventListener('input', () => {
    clearBtn.hidden = !el.q.value;
    const n = Array.from(query()).length;
    if (n === 0 || n >= SEARCH_MIN) searchLater();
    else searchLater.cancel();
  });
  el.q.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') { el.q.value = ''; searchNow(); }
    if (ev.key === 'Enter') { ev.preventDefault(); searchNow(); }
  });

  const activeFilters = () => ['category', 'region', 'dominant', 'lang'].filter((k) => get(k)).length + (get('limit') ? 1 : 0);

  function togglePanel(name) {
    panels[name] = !panels[name];
    sessionSet('flagpole.' + name, panels[name] ? 'open' : 'closed');
    drawToolbar();
    drawFilters();
    drawOverview();
    if (panels[name]) ensurePanels();
  }

  // ensurePanels loads what an open panel shows: the lists for the filters
  // (cached ten minutes) and, for the overview, the stats too.
  function ensurePanels(force) {
    const wantLists = panels.filters || panels.overview;
    const jobs = [];
    if (wantLists && (force || !lists.categories || !lists.regions || !cached('regions', {}, FRESH.lists))) {
      jobs.push(loadLists(force).then((l) => { lists = l; }));
    }
    if (panels.overview && (force || !cached('stats', {}, FRESH.stats))) {
      jobs.push(api('stats', {}, { maxAge: force ? 0 : FRESH.stats }).then((s) => { stats = s; }));
    }
    if (!jobs.length) return;
    Promise.all(jobs).then(() => { drawFilters(); drawOverview(); }, (err) => failed(err, () => ensurePanels(force)));
  }

  function filterChip(k, name) {
    return h('button', {
      type: 'button', class: 'filter-chip', 'aria-label': t('list.removeFilter', { name }),
      onclick: () => go({ [k]: '' }),
    }, name, h('span', { 'aria-hidden': 'true' }, ' ×'));
  }

  function drawToolbar() {
    const n = activeFilters();
    const searching = data && data.mode === 'search';
    const regionLabel = (v) => (v.toLowerCase() === 'world' ? region(null) : region(v.toUpperCase()));
    replace(el.toolbar,
      h('div', { class: 'toolbar-row' },
        select('sort', t('list.sort'), SORTS.map((s) => [s, t('sort.' + s)]), sort(), (v) => go({ sort: v, order: '' })),
        h('label', { class: 'field', for: 'order' },
          h('span', { class: 'field-label' }, t('list.order')),
          h('select', { id: 'order', onchange: (ev) => go({ order: ev.target.value }) },
            ['asc', 'desc'].map((o) => h('option', { value: o, selected: o === order() }, t(`hint.${sort()}.${o}`))))),
        h('div', { class: 'toolbar-buttons' },
          h('button', {
            type: 'button', class: 'btn toggle', id: 'filters-toggle', 'aria-expanded': String(panels.filters),
            'aria-controls': 'filters', onclick: () => togglePanel('filters'),
          }, n ? t('list.filtersActive', { n }) : t('list.filters')),
          h('button', {
            type: 'button', class: 'btn toggle', id: 'overview-toggle', 'aria-expanded': String(panels.overview),
            'aria-controls': 'overview', onclick: () => togglePanel('overview'),
          }, t('list.overview')))),
      n && !panels.filters ? h('div', { class: 'chips' },
        get('category') && filterChip('category', category(get('category').toUpperCase())),
        get('region') && filterChip('region', regionLabel(get('region'))),
        get('dominant') && filterChip('dominant', t('dom.' + get('dominant'))),
        get('lang') && filterChip('lang', t('search.lang') + ': ' + langName(get('lang'))),
        get('limit') && filterChip('limit', t('list.perPage') + ': ' + get('limit'))) : null);
    el.toolbar.classList.toggle('off', !!searching);
  }

  function drawFilters() {
    el.filters.hidden = !panels.filters;
    if (!panels.filters) { el.filters.replaceChildren(); return; }
    const searching = data && data.mode === 'search';
    // The counts are of every flag, as /categories and /regions give
    // them: beside a search they would read as the search's, so a search
    // shows the names alone.
    const counts = new Map(searching ? [] : (lists.categories || []).map((c) => [c.enum, c.count]));
    const regs = lists.regions || [];
    const cur = get('region');
    const regOptions = regs.map((r) => [r.code ? r.code.toLowerCase() : 'world',
      searching ? region(r.code) : `${region(r.code)} (${num(r.count)})`]);
    if (cur && !regOptions.some(([v]) => v === cur.toLowerCase())) regOptions.unshift([cur.toLowerCase(), region(cur.toLowerCase() === 'world' ? null : cur.toUpperCase())]);
    const seg = h('div', { class: 'seg', role: 'group', id: 'dominant', 'aria-labelledby': 'dominant-label' },
      DOMINANTS.map((d) => h('button', {
        type: 'button', class: 'seg-btn ' + (d || 'all'), 'aria-pressed': String(get('dominant') === d), dataset: { value: d },
        onclick: () => go({ dominant: d }),
      }, d ? h('span', { class: 'dot ' + d[0], 'aria-hidden': 'true' }) : null, t('dom.' + (d || 'all')))));
    replace(el.filters,
      select('category', t('list.category'),
        [['', t('list.allCategories')], ...CATEGORY_ENUMS.map((c) => [c.toLowerCase(),
          counts.has(c) ? `${category(c)} (${num(counts.get(c))})` : category(c)])],
        get('category').toLowerCase(), (v) => go({ category: v })),
      select('region', t('list.region'), [['', t('list.allRegions')], ...regOptions], cur.toLowerCase(), (v) => go({ region: v })),
      h('div', { class: 'field' }, h('span', { class: 'field-label', id: 'dominant-label' }, t('list.dominant')), seg),
      searching || get('lang') ? select('search-lang', t('search.lang'), [['', t('search.allLangs')], ...LANGS.map((l) => [l, langName(l)])],
        get('lang'), (v) => go({ lang: v })) : null,
      select('limit', t('list.perPage'), LIMITS.map((n) => [String(n), String(n)]), String(limit()), (v) => go({ limit: v })),
      !lists.regions ? h('p', { class: 'muted small lists-note' }, t('list.loadingLists')) : null,
    );
  }

  function drawOverview() {
    el.overview.hidden = !panels.overview;
    if (!panels.overview) { el.overview.replaceChildren(); return; }
    const m = lists;
    replace(el.overview,
      h('div', { class: 'overview-head' },
        h('h2', { id: 'overview-title' }, t('glance.title')),
        h('button', { type: 'button', class: 'btn ghost small', onclick: () => ensurePanels(true) }, '↻ ', t('glance.refresh'))),
      stats ? h('div', { class: 'glance', id: 'glance' }, glanceCards(stats)) : h('p', { class: 'muted' }, t('list.loading')),
      h('div', { class: 'overview-lists' },
        h('section', { class: 'card panel' }, h('h3', {}, t('glance.categories')),
          h('ul', { class: 'counts', id: 'categories' }, m.categories
            ? countList(m.categories, (c) => category(c.enum), (c) => c.slug, get('category').toLowerCase(), (v) => go({ category: v })) : null)),
        h('section', { class: 'card panel' }, h('h3', {}, t('glance.regions')),
          h('ul', { class: 'counts', id: 'regions' }, m.regions
            ? countList(m.regions, (r) => h('span', {}, h('b', { class: 'code' }, r.code || ''), ' ', region(r.code)),
              (r) => (r.code ? r.code.toLowerCase() : 'world'), get('region').toLowerCase(), (v) => go({ region: v })) : null))));
  }

  function drawResults() {
    el.title.textContent = t('list.title');
    el.q.placeholder = t('list.search');
    el.q.setAttribute('aria-label', t('list.searchLabel'));
    clearBtn.title = t('search.clear');
    clearBtn.setAttribute('aria-label', t('search.clear'));
    clearBtn.hidden = !el.q.value;
    drawToolbar();
    drawFilters();
    if (!data) return;
    const { mode, body } = data;
    el.summary.dataset.mode = mode;
    if (mode === 'search') {
      replace(el.summary,
        h('strong', {}, body.total ? tn('search.results', body.total, { q: body.q }) : t('search.none', { q: body.q })),
        body.total > body.count ? h('span', { class: 'muted' }, ' · ', t('list.range', {
          from: num(body.count ? body.offset + 1 : 0), to: num(body.offset + body.count), total: num(body.total),
        })) : null,
        h('div', { class: 'muted small' }, t('search.sortOff')));
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
    el.pager.hidden = mode === 'search' && body.total <= body.count && !body.offset;
    if (!el.pager.hidden) {
      const prev = Math.max(0, body.offset - body.limit);
      const next = body.offset + body.limit;
      replace(el.pager,
        h('button', { type: 'button', class: 'btn', id: 'prev', disabled: body.offset === 0, onclick: () => go({ offset: prev || '' }, true) }, t('list.prev')),
        h('span', { class: 'muted' }, t('list.range', { from: num(body.count ? body.offset + 1 : 0), to: num(body.offset + body.count), total: num(body.total) })),
        h('button', { type: 'button', class: 'btn', id: 'next', disabled: next >= body.total, onclick: () => go({ offset: next }, true) }, t('list.next')));
    }
  }

  async function load(force) {
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    const signal = ctrl.signal;
    const q = (params.get('q') || '').trim();
    const maxAge = force ? 0 : FRESH.list;
    el.list.classList.add('loading');
    try {
      let next;
      if (Array.from(q).length >= SEARCH_MIN) {
        next = { mode: 'search', body: await api('search', {
          q, category: get('category'), region: get('region'), dominant: get('dominant'), lang: get('lang'),
          limit: Math.min(limit(), SEARCH_LIMIT), offset: offset() || '',
        }, { signal, maxAge }) };
      } else {
        const body = await api('flags', {
          sort: sort(), order: get('order'), category: get('category'), region: get('region'),
          dominant: get('dominant'), limit: limit(), offset: offset() || '',
        }, { signal, maxAge });
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
    drawToolbar();
    drawFilters();
    drawOverview();
    load();
  }

  lastListHash = listHash(params);
  replace(el.summary, t('list.loading'));
  update(route);
  ensurePanels();
  return {
    name: 'list',
    update,
    relabel() { drawResults(); drawOverview(); },
    reload() { ensurePanels(true); load(true); },
    destroy() { if (ctrl) ctrl.abort(); searchLater.cancel(); },
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

// lastDays keeps the snapshots of the last d UTC days (today included), as
// the API's days parameter would: the page asks for 90 days once and shows 7,
// 30 or 90 from that answer.
function lastDays(trend, d) {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = today - (d - 1) * 86400_000;
  const snapshots = (trend.snapshots || []).filter((s) => Date.parse(s.at) >= from);
  return { ...trend, days: d, count: snapshots.length, snapshots };
}

function flagView(route) {
  let slug = route.slug;
  let days = DAYS.includes(+route.params.get('days')) ? +route.params.get('days') : 30;
  let flag = null; // the full flag, or what a list showed of it meanwhile
  let full = false;
  let trend = null; // 90 days
  let chart = null;
  let ctrl = null;
  let live = null; // the live stream of slug, once the flag is loaded
  let liveState = 'connecting';
  let said = 0; // when the live counts were last put in the status region
  let sayTimer = 0;
  const root = h('article', { class: 'flag-page' });
  const chartEl = h('div', { class: 'chart', id: 'chart' });
  const resize = new ResizeObserver(() => { if (chart && chartEl.clientWidth) chart.resize(chartEl.clientWidth); });
  resize.observe(chartEl);
  replace(viewEl, h('a', { class: 'back', id: 'back', href: lastListHash }, t('flag.back')), root);
  replace(root, h('div', { class: 'card loading-card' }, t('list.loading')));

  function draw() {
    viewEl.querySelector('#back').textContent = t('flag.back');
    if (!flag) return;
    const v = flag.votes;
    const pct = (n) => percent(v.total ? n / v.total : 0);
    const daysSeg = h('div', { class: 'seg', role: 'group', id: 'days', 'aria-label': t('flag.trend') },
      DAYS.map((d) => h('button', {
        type: 'button', class: 'seg-btn', 'aria-pressed': String(d === days), dataset: { days: String(d) },
        onclick: () => { location.hash = '#/flag/' + encodeURIComponent(slug) + '?days=' + d; },
      }, t('flag.days', { n: d }))));
    const desc = flag.description ? text(flag.description) : '';
    const shown = trend ? lastDays(trend, days) : null;
    const last = shown && shown.snapshots.length ? shown.snapshots[shown.snapshots.length - 1] : null;
    replace(root,
      h('header', { class: 'card flag-head' },
        h('div', { class: 'flag-tags' },
          badge(flag.dominant, 'flag-badge'),
          h('span', { class: 'chip' }, category(flag.category)),
          regionChip(flag.region),
          (flag.contexts || []).map((c) => h('span', { class: 'chip soft' }, context(c)))),
        h('h1', { id: 'flag-title', lang: lang() }, text(flag.text)),
        desc && h('p', { class: 'desc', id: 'flag-desc' }, desc),
        h('p', { class: 'live-label', id: 'live-label', dataset: { state: liveState } },
          h('span', { class: 'live-dot', 'aria-hidden': 'true' }), h('span', { id: 'live-text' }, t('live.' + liveState))),
        h('div', { class: 'flag-votes-big', id: 'live' },
          h('div', { class: 'vote r' }, h('b', { dataset: { n: 'red' } }, num(v.red)),
            h('span', {}, t('flag.red'), ' · ', h('span', { dataset: { p: 'red' } }, pct(v.red)))),
          h('div', { class: 'vote g' }, h('b', { dataset: { n: 'green' } }, num(v.green)),
            h('span', {}, t('flag.green'), ' · ', h('span', { dataset: { p: 'green' } }, pct(v.green)))),
          h('div', { class: 'vote' }, h('b', { dataset: { n: 'total' } }, num(v.total)), h('span', {}, t('flag.total'))),
          h('div', { class: 'vote n' }, h('b', { dataset: { n: 'net' } }, signed(v.net)), h('span', {}, t('flag.net')))),
        voteBar(v, true),
        h('p', { class: 'sr-only', id: 'live-status', role: 'status' })),
      h('section', { class: 'card trend', 'aria-labelledby': 'trend-title' },
        h('div', { class: 'card-head' }, h('h2', { id: 'trend-title' }, t('flag.trend')), daysSeg),
        chartEl,
        h('p', { class: 'muted small', id: 'trend-note' }, shown
          ? (shown.count ? [t('flag.points', { n: num(shown.count) }), ' · ', t('flag.liveNote', { day: day(Date.parse(last.at)) })] : t('flag.noTrend'))
          : t('list.loading'))),
      full && h('section', { class: 'card langs' },
        h('h2', {}, t('flag.languages')),
        h('dl', {}, LANGS.map((l) => [
          h('dt', { class: l === lang() ? 'current' : '' }, h('span', { class: 'lang-code' }, l.toUpperCase()), ' ', langName(l)),
          h('dd', { lang: l, class: l === lang() ? 'current' : '' }, flag.text[l] || '—',
            flag.description && flag.description[l] ? h('div', { class: 'muted small' }, flag.description[l]) : null),
        ]))),
      full && h('dl', { class: 'flag-facts muted small' },
        h('dt', {}, t('flag.created')), h('dd', {}, date(flag.createdAt, true)),
        h('dt', {}, 'slug'), h('dd', {}, h('code', {}, flag.slug)),
        h('dt', {}, 'id'), h('dd', {}, h('code', {}, flag.id))),
    );
    drawChart(shown);
  }

  // drawVotes shows flag's votes and dominant colour in the drawn page, in
  // place: the numbers' text, the bar's widths, the badge.
  function drawVotes() {
    const v = flag.votes;
    const figs = root.querySelector('#live');
    if (!figs) return;
    const set = (sel, s) => { const el = figs.querySelector(sel); if (el && el.textContent !== s) el.textContent = s; };
    set('[data-n="red"]', num(v.red));
    set('[data-n="green"]', num(v.green));
    set('[data-n="total"]', num(v.total));
    set('[data-n="net"]', signed(v.net));
    set('[data-p="red"]', percent(v.total ? v.red / v.total : 0));
    set('[data-p="green"]', percent(v.total ? v.green / v.total : 0));
    setVoteBar(root.querySelector('#votebar'), v);
    const b = root.querySelector('#flag-badge');
    b.className = 'badge ' + flag.dominant;
    b.textContent = t('dom.' + flag.dominant);
  }

  // say puts the live counts in the polite status region, at most once per
  // SAY_EVERY: a flag voted on every second does not talk all the time.
  function say() {
    const wait = said + SAY_EVERY - Date.now();
    if (wait > 0) {
      if (!sayTimer) sayTimer = setTimeout(() => { sayTimer = 0; say(); }, wait);
      return;
    }
    said = Date.now();
    const el = root.querySelector('#live-status');
    const v = flag.votes;
    if (el) el.textContent = t('live.changed', { red: num(v.red), green: num(v.green), net: signed(v.net) });
  }

  function drawLive() {
    const label = root.querySelector('#live-label');
    if (!label) return;
    label.dataset.state = liveState;
    label.querySelector('#live-text').textContent = t('live.' + liveState);
  }

  // followLive opens the live stream of slug, unless it is open.
  function followLive() {
    if (live && live.slug === slug) return;
    stopLive();
    const s = slug;
    const path = 'flag/' + encodeURIComponent(s);
    live = follow(s, {
      onVotes(item) {
        if (s !== slug || !flag) return;
        flag = { ...flag, votes: item.votes, dominant: item.dominant };
        if (full) keep(path, flag); // a flag shown again starts from these counts
        if (seen.has(s)) seen.set(s, { ...seen.get(s), votes: item.votes, dominant: item.dominant });
        drawVotes();
        say();
      },
      onResync() { if (s === slug) resync(); },
      onState(state) {
        if (s !== slug) return;
        liveState = state;
        drawLive();
      },
    });
    live.slug = s;
  }

  function stopLive() {
    if (live) live.close();
    live = null;
    clearTimeout(sayTimer);
    sayTimer = 0;
    liveState = 'connecting';
  }

  // resync reads the flag again when the stream cannot say what was missed.
  async function resync() {
    const s = slug;
    try {
      const f = await api('flag/' + encodeURIComponent(s), {}, { maxAge: 0 });
      if (s !== slug || !live) return;
      flag = f;
      full = true;
      drawVotes();
    } catch (err) {
      if (s !== slug) return;
      if (err instanceof ApiError && err.kind === 'notfound') {
        stopLive();
        replace(root, h('div', { class: 'card empty' }, t('flag.notFound')));
        return;
      }
      failed(err, resync);
    }
  }

  function drawChart(shown) {
    if (chart) { chart.destroy(); chart = null; }
    if (!shown) { chartEl.replaceChildren(); return; }
    if (!shown.snapshots.length) {
      chartEl.dataset.points = '0';
      replace(chartEl, h('div', { class: 'chart-empty' }, t('flag.noTrend')));
      return;
    }
    chart = drawTrend(chartEl, shown);
  }

  async function load(force) {
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    const signal = ctrl.signal;
    const path = 'flag/' + encodeURIComponent(slug);
    flag = seen.get(slug) || null;
    full = false;
    trend = null;
    if (flag) draw();
    // The flag and its trend: two requests, sent together (no single call
    // of the API answers both).
    const fp = api(path, {}, { signal, maxAge: force ? 0 : FRESH.flag });
    const tp = api(path + '/trend', { days: 90 }, { signal, maxAge: force ? 0 : FRESH.trend });
    tp.catch(() => {}); // reported below, once
    try {
      flag = await fp;
      full = true;
      document.title = text(flag.text) + ' · flagpole';
      settleNotice();
      draw();
      followLive();
    } catch (err) {
      if (err instanceof ApiError && err.kind === 'notfound') {
        stopLive();
        replace(root, h('div', { class: 'card empty' }, t('flag.notFound')));
        return;
      }
      failed(err, () => load());
      return;
    }
    try {
      trend = await tp;
      if (!signal.aborted) draw();
    } catch (err) {
      failed(err, () => load());
    }
  }

  function update(r) {
    const d = DAYS.includes(+r.params.get('days')) ? +r.params.get('days') : 30;
    if (r.slug !== slug) {
      stopLive();
      slug = r.slug;
      days = d;
      load();
    } else if (d !== days) {
      days = d; // the 90 days in hand hold the shorter windows: no request
      draw();
    }
  }

  load();
  return {
    name: 'flag',
    update,
    relabel() { draw(); if (flag && full) document.title = text(flag.text) + ' · flagpole'; },
    reload: () => load(true),
    destroy() {
      if (ctrl) ctrl.abort();
      stopLive();
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
  const pick = $('lang');
  pick.value = lang();
  for (const o of pick.options) { o.textContent = o.value.toUpperCase(); o.title = langName(o.value); }
  const q = $('quota');
  if (q.dataset.limit) q.textContent = t('quota', { r: num(+q.dataset.remaining), l: num(+q.dataset.limit) });
  if (notice.kind) drawNotice();
}

function wireLang() {
  $('lang').addEventListener('change', (ev) => setLang(ev.target.value));
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
  if (ev.key === 'flagpole.key') { drawKeyArea(); unmount(); quotaRead = false; render(); }
});
render();
