// The API reference: Swagger UI (vendor/swagger-ui) over the document this
// server serves at /api/public/openapi.json. "Try it" requests go to this
// server first (the document's own servers stay selectable) and carry the
// key set in the explorer, when there is one.
const KEY = 'flagpole.key';

function storedKey() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}

// The served JSON has its paths sorted by name; show them in the order a
// reader meets them (the list, one flag, its trend, ...), anything else after.
const ORDER = [
  '/api/public/flags', '/api/public/flag/{slug}', '/api/public/flag/{slug}/trend',
  '/api/public/categories', '/api/public/regions', '/api/public/stats', '/api/public/search',
  '/api/public/openapi.json', '/healthz', '/readyz',
];

function inOrder(paths) {
  const out = {};
  for (const p of ORDER) if (p in paths) out[p] = paths[p];
  for (const p of Object.keys(paths)) if (!(p in out)) out[p] = paths[p];
  return out;
}

async function start() {
  const res = await fetch('/api/public/openapi.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error('openapi.json: HTTP ' + res.status);
  const spec = await res.json();
  const here = location.origin;
  const others = (spec.servers || []).filter((s) => s.url.replace(/\/+$/, '') !== here);
  spec.servers = [{ url: here, description: 'This server' }, ...others];

  spec.paths = inOrder(spec.paths || {});

  const key = storedKey();
  const ui = window.SwaggerUIBundle({
    spec,
    dom_id: '#swagger',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayRequestDuration: true,
    tryItOutEnabled: true,
    persistAuthorization: true,
    filter: true,
    validatorUrl: null,
    syntaxHighlight: { activated: true, theme: 'agate' },
    onComplete() {
      if (key) {
        ui.preauthorizeApiKey('bearerAuth', key);
        const note = document.getElementById('auth-state');
        note.textContent = 'The key from the explorer is set (Authorize shows it); Execute sends it as Authorization: Bearer.';
      }
      document.body.dataset.ready = 'true';
    },
  });
  window.ui = ui;
}

const aux = document.getElementById('show-aux');
aux.addEventListener('change', () => document.body.classList.toggle('hide-aux', !aux.checked));

start().catch((err) => {
  const box = document.getElementById('swagger');
  box.textContent = 'The API document could not be loaded: ' + err.message;
  box.className = 'docs-error';
});
