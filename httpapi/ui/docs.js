// The API reference: Scalar's API Reference (vendor/scalar, a global
// script) over the document this server serves at /api/public/openapi.json.
// "Try it" requests go to this server first (the document's own servers stay
// selectable) with the key set in the explorer or typed here: both pages
// share it (localStorage flagpole.key).
const KEY = 'flagpole.key';

function storedKey() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}

function rememberKey(key) {
  try { if (key && key !== storedKey()) localStorage.setItem(KEY, key); } catch { /* storage off */ }
}

// The samples: curl, JavaScript (fetch), Python (requests) and Go. Scalar
// has no list of clients to show, only hiddenClients, the ones to hide: as a
// list, "target" hides all of a language and "target/client" one client
// (Scalar 1.72's targets and clients: c/libcurl, clojure/clj_http,
// csharp/{httpclient,restsharp}, dart/http, fsharp/httpclient, go/native,
// http/http1.1, java/{asynchttp,nethttp,okhttp,unirest}, julia/http,
// kotlin/okhttp, js/{axios,fetch,jquery,ofetch,xhr},
// node/{axios,fetch,ofetch,undici}, objc/nsurlsession, ocaml/cohttp,
// php/{curl,guzzle,laravel}, powershell/{restmethod,webrequest},
// python/{python3,requests,aiohttp,httpx_sync,httpx_async}, r/httr2,
// ruby/native, rust/reqwest, shell/{curl,httpie,wget}, swift/nsurlsession).
// Every operation's client menu offers the four left; the tabs of the
// "Client Libraries" box are Scalar's fixed featured five (shell/curl,
// ruby/native, node/undici, php/guzzle, python/python3) less the hidden
// ones, so curl alone, the three others under its "More" menu.
const HIDDEN_CLIENTS = [
  'c', 'clojure', 'csharp', 'dart', 'fsharp', 'http', 'java', 'julia', 'kotlin', 'node', 'objc', 'ocaml',
  'php', 'powershell', 'r', 'ruby', 'rust', 'swift',
  'shell/httpie', 'shell/wget', 'js/jquery', 'js/ofetch', 'js/xhr', 'js/axios',
  'python/python3', 'python/httpx_sync', 'python/httpx_async', 'python/aiohttp',
];

// endpointsFirst lists the operations before the guides, in the sidebar and
// in the page: the guide sections are linked from the introduction, and the
// sidebar's first screen shows every operation.
function endpointsFirst(spec) {
  const groups = spec['x-tagGroups'];
  if (!Array.isArray(groups)) return spec;
  const used = new Set();
  for (const item of Object.values(spec.paths || {})) {
    for (const op of Object.values(item)) for (const t of op?.tags || []) used.add(t);
  }
  const hasOps = (g) => (g.tags || []).some((t) => used.has(t));
  spec['x-tagGroups'] = [...groups.filter(hasOps), ...groups.filter((g) => !hasOps(g))];
  return spec;
}

// tryItPlain leaves the optional query parameters of "try it" unticked: the
// client would otherwise send every one that has an example, a default or an
// enum (/flags?category=CHARACTER&dominant=red...), and a plain Send must list
// every flag. Their examples stay, in the text and in the client, marked
// x-disabled (Scalar's own extension for an example that starts unticked).
function tryItPlain(spec) {
  const shared = spec.components?.parameters || {};
  const resolve = (p) => {
    const m = typeof p?.$ref === 'string' && p.$ref.match(/^#\/components\/parameters\/(.+)$/);
    return m ? shared[m[1]] : p;
  };
  const off = (value) => ({ value, 'x-disabled': true });
  for (const item of Object.values(spec.paths || {})) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !Array.isArray(op.parameters)) continue;
      op.parameters = op.parameters.map((ref) => {
        const p = resolve(ref);
        if (!p || p.in !== 'query' || p.required) return ref;
        const q = { ...p };
        const schema = p.schema || {};
        if (q.examples) {
          q.examples = Object.fromEntries(Object.entries(q.examples).map(([k, e]) => [k, { ...e, 'x-disabled': true }]));
        } else if (q.example !== undefined) {
          q.examples = { example: off(q.example) };
        } else {
          const v = schema.default ?? schema.enum?.[0] ?? schema.examples?.[0] ?? schema.example;
          q.examples = { default: off(v ?? '') };
        }
        delete q.example;
        return q;
      });
    }
  }
  return spec;
}

// a11yFixes mends, as Scalar renders, what axe finds in it: a code block
// wider than its column scrolls, so it must take focus (unless a scrolling
// wrapper already does), and the copy buttons of code blocks have no name
// a screen reader can read. The sidebar's operations, cut to one line on
// wide screens (docs.css), carry their whole title as a tooltip.
function a11yFixes(root) {
  const fix = () => {
    for (const pre of root.querySelectorAll('pre')) {
      if (pre.parentElement.closest('[tabindex]') && pre.parentElement.closest('[tabindex]') !== root) continue;
      const el = pre.querySelector(':scope > code[class*="language-"]') || pre;
      if (el.hasAttribute('tabindex')) continue;
      el.tabIndex = 0;
      if (!el.hasAttribute('aria-label')) el.setAttribute('aria-label', 'Code sample');
    }
    // (their words are in the button, but hidden until it is hovered)
    for (const b of root.querySelectorAll('button.scalar-code-copy:not([aria-label])')) b.setAttribute('aria-label', 'Copy code');
    for (const label of root.querySelectorAll('.t-doc__sidebar a[href*="/GET/"] > [class~="group/button-label"]')) {
      const title = label.textContent.trim();
      if (label.title !== title) label.title = title;
    }
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; fix(); });
  }).observe(root, { childList: true, subtree: true });
  fix();
}

async function start() {
  const res = await fetch('/api/public/openapi.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error('openapi.json: HTTP ' + res.status);
  const spec = endpointsFirst(tryItPlain(await res.json()));
  const here = location.origin;
  const others = (spec.servers || []).filter((s) => s.url.replace(/\/+$/, '') !== here);
  spec.servers = [{ url: here, description: 'This server' }, ...others];

  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  const box = document.getElementById('reference');
  box.replaceChildren();
  const key = storedKey();
  const ref = window.Scalar.createApiReference(box, {
    content: spec,
    layout: 'modern',
    theme: 'default',
    telemetry: false,
    withDefaultFonts: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: 'none',
    hideDarkModeToggle: true,
    darkMode: dark.matches,
    operationTitleSource: 'summary',
    defaultOpenAllTags: true,
    hiddenClients: HIDDEN_CLIENTS,
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    authentication: {
      preferredSecurityScheme: 'bearerAuth',
      securitySchemes: { bearerAuth: { token: key } },
    },
    // A key typed in "try it" is kept for next time and for the explorer.
    customFetch(input, init) {
      const auth = new Headers(init?.headers || (input instanceof Request ? input.headers : undefined)).get('Authorization') || '';
      const m = auth.match(/^Bearer\s+(\S+)$/i);
      if (m) rememberKey(m[1]);
      return fetch(input, init);
    },
    onLoaded() { document.body.dataset.ready = 'true'; },
  });
  a11yFixes(box);
  dark.addEventListener('change', () => ref.updateConfiguration({ ...ref.getConfiguration(), darkMode: dark.matches }));
  window.reference = ref;
}

start().catch((err) => {
  const box = document.getElementById('reference');
  box.textContent = 'The API document could not be loaded: ' + err.message;
  box.className = 'docs-error';
});
