// A tour of the flagpole API through a client generated from its OpenAPI
// document (openapi-typescript's types, openapi-fetch's calls): a filtered
// list, one flag and its trend, a search with its highlights, the key's
// budget, and the typed errors of a 400, a 401 and a 404; with --spend,
// also a 429 and its Retry-After, by spending what is left of the key's
// budget (the key then waits out its minute).
//
//   npm run generate && npm run build
//   FLAGPOLE_KEY=grf_... node dist/example.js [--url http://127.0.0.1:8080] [--spend]
//
// It prints what it reads, and exits 1 when an answer is not what the API
// documents.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Problem = components["schemas"]["Problem"];
type SearchMatch = components["schemas"]["SearchMatch"];
// The headers the document gives the 429 of a route, by name and type.
type Headers429 = paths["/api/public/categories"]["get"]["responses"][429]["headers"];

const args = process.argv.slice(2);
const baseUrl = args.includes("--url") ? args[args.indexOf("--url") + 1]! : "http://127.0.0.1:8080";
const key = process.env.FLAGPOLE_KEY ?? "";

function client(k: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${k}` } });
}

function unexpected(what: string, res: Response, body: unknown): Error {
  return new Error(`${what}: unexpected answer ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
}

// mark puts brackets around each match of text; start and end count code
// points, end exclusive (so a string is cut as an array of code points).
function mark(text: string, matches: SearchMatch[]): string {
  const cps = Array.from(text);
  let out = "";
  let at = 0;
  for (const m of matches) {
    out += cps.slice(at, m.start).join("") + `[${cps.slice(m.start, m.end).join("")}|${m.kind}]`;
    at = m.end;
  }
  return out + cps.slice(at).join("");
}

async function main(): Promise<void> {
  if (!key) throw new Error("set FLAGPOLE_KEY to an API key (flagpole serve --demo prints one)");
  const api = client(key);

  // A filtered list: the most controversial social flags of the world that split their voters.
  const list = await api.GET("/api/public/flags", {
    params: { query: { sort: "controversial", category: "social", region: "world", dominant: "yellow", limit: 3 } },
  });
  if (!list.data) throw unexpected("list", list.response, list.error);
  console.log(`flags: ${list.data.count} of ${list.data.total} (sort ${list.data.sort}, order ${list.data.order})`);
  for (const f of list.data.data) {
    if (f.category !== "SOCIAL" || f.region !== null || f.dominant !== "yellow") {
      throw new Error(`list: ${f.slug} is outside the filters`);
    }
    console.log(`  ${f.slug}  red ${f.votes.red} green ${f.votes.green}  ${f.text.en}`);
  }
  const slug = list.data.data[0]?.slug;
  if (!slug) throw new Error("list: no flag to show");

  // One flag, with its contexts and description.
  const one = await api.GET("/api/public/flag/{slug}", { params: { path: { slug } } });
  if (!one.data) throw unexpected("flag", one.response, one.error);
  console.log(`flag: ${one.data.slug} (${one.data.id}) contexts ${one.data.contexts.join(",")}`);

  // Its trend over the last week.
  const trend = await api.GET("/api/public/flag/{slug}/trend", { params: { path: { slug }, query: { days: 7 } } });
  if (!trend.data) throw unexpected("trend", trend.response, trend.error);
  console.log(`trend: ${trend.data.count} snapshots in ${trend.data.days} days`);
  for (const s of trend.data.snapshots) console.log(`  ${s.at.slice(0, 10)} net ${s.net}`);

  // A search, its words marked where they matched.
  const search = await api.GET("/api/public/search", { params: { query: { q: "yasli otob" } } });
  if (!search.data) throw unexpected("search", search.response, search.error);
  console.log(`search "${search.data.q}": ${search.data.count} of ${search.data.total}`);
  for (const hit of search.data.data) {
    const tr = hit.matches?.tr;
    if (!tr) throw new Error(`search: ${hit.slug} has no Turkish matches`);
    console.log(`  rank ${hit.rank}  ${mark(hit.text.tr, tr)}`);
  }
  if (search.data.total === 0) throw new Error("search: no hit");

  // The key's budget, which this request does not spend.
  const budget = await api.GET("/api/public/rate_limit");
  if (!budget.data) throw unexpected("rate_limit", budget.response, budget.error);
  console.log(`rate_limit: ${budget.data.remaining} of ${budget.data.limit} left, ${budget.data.used} used`);

  // A 400: a page of 0 flags; the problem names the parameter.
  const bad = await api.GET("/api/public/flags", { params: { query: { limit: 0 } } });
  const p400: Problem | undefined = bad.error;
  if (bad.response.status !== 400 || p400?.code !== "invalid_parameter" || p400.param !== "limit") {
    throw unexpected("limit=0", bad.response, bad.error);
  }
  console.log(`400: ${p400.code}, param ${p400.param}: ${p400.detail}`);

  // A 404: a flag no one has.
  const missing = await api.GET("/api/public/flag/{slug}", { params: { path: { slug: "no-such-flag" } } });
  if (missing.response.status !== 404 || missing.error?.code !== "not_found") {
    throw unexpected("no-such-flag", missing.response, missing.error);
  }
  console.log(`404: ${missing.error.code}: ${missing.error.detail}`);

  // A 401: a key the server does not know.
  const stranger = await client("grf_not-a-key").GET("/api/public/stats");
  if (stranger.response.status !== 401 || stranger.error?.code !== "unauthorized") {
    throw unexpected("an unknown key", stranger.response, stranger.error);
  }
  console.log(`401: ${stranger.error.code}: ${stranger.error.detail}`);

  // A 429, with --spend: the budget spent, then how long to wait.
  if (args.includes("--spend")) {
    for (let i = 0; i < 1000; i++) {
      const r = await api.GET("/api/public/categories");
      if (r.response.status === 429) {
        const name = "Retry-After" satisfies keyof Headers429;
        const retryAfter: Headers429[typeof name] = Number(r.response.headers.get(name));
        if (r.error?.code !== "rate_limited" || !(retryAfter >= 1)) throw unexpected("the budget spent", r.response, r.error);
        console.log(`429: ${r.error.code}: ${r.error.detail}; Retry-After: ${retryAfter} s`);
        return;
      }
      if (!r.data) throw unexpected("categories", r.response, r.error);
    }
    throw new Error("no 429 within 1000 requests");
  }
}

main().catch((err: unknown) => {
  console.error("example:", err instanceof Error ? err.message : err);
  process.exit(1);
});
