package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flagpole/flagpole/httpapi"
)

// votesWords are the words the flags of the votes tests say: few, so that
// a search matches many flags and its ranks tie, and a vote reorders them.
var votesWords = []string{"otobüs", "otobüste", "yaşlı", "bus", "busy", "phone", "telefon", "late", "money", "friends",
	"driver", "seat", "cards", "größe", "niño"}

// votesLine is flag i of the votes tests, with random texts, category,
// region and votes.
func votesLine(r *rand.Rand, i int) string {
	text := func() string {
		var ws []string
		for range 1 + r.IntN(4) {
			ws = append(ws, votesWords[r.IntN(len(votesWords))])
		}
		return strings.Join(ws, " ")
	}
	cats := []string{"SOCIAL", "BEHAVIORAL", "CULTURAL"}
	regions := []string{"", "TR", "DE"}
	return fx{id: fmt.Sprintf("v%04d", i), slug: fmt.Sprintf("votes-%d", i), cat: cats[r.IntN(len(cats))],
		region: regions[r.IntN(len(regions))], red: int64(r.IntN(6)), green: int64(r.IntN(6)), created: base.Add(-time.Duration(i) * time.Hour),
		text: [4]string{text(), text(), text(), text()}}.line()
}

// votesPaths are the searches and list pages the votes tests compare: the
// filters that votes can change (dominant), those they cannot, pages deep
// and shallow, a stem and a typo.
func votesPaths() []string {
	var out []string
	for _, q := range []string{"bus", "ot", "yasli otob", "phone", "late friends", "telefn", "money", "se", "driver seat"} {
		for _, o := range []string{"", "&limit=3", "&offset=2&limit=5", "&dominant=green", "&dominant=yellow&limit=4",
			"&dominant=red&offset=1", "&category=social", "&region=TR&dominant=green", "&region=world", "&lang=en", "&offset=40"} {
			out = append(out, "/api/public/search?q="+url.QueryEscape(q)+o)
		}
	}
	for _, s := range []string{"net", "total", "controversial", "newest"} {
		for _, o := range []string{"", "&order=desc&limit=7", "&dominant=green", "&category=social&limit=5&offset=3"} {
			out = append(out, "/api/public/flags?sort="+s+o)
		}
	}
	return out
}

// plainServer serves the API of e's store with every cache off: what the
// snapshot answers, computed anew for each request.
func plainServer(t *testing.T, e *env) *httptest.Server {
	t.Helper()
	api, err := httpapi.New(httpapi.Options{Store: e.store, CacheBytes: 0, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	t.Cleanup(func() { srv.Close(); api.Close() })
	return srv
}

// fetch GETs base+path with e's key: the status, ETag and body.
func fetch(t *testing.T, e *env, base, path string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	res, err := rawTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("ETag"), string(body)
}

// Under a stream of votes (and now and then an edit of a text or a new
// flag), written as the voting application writes them and loaded by the
// loader, every search and list page the caches answer after each swap
// is, to the byte and the ETag, what the same store answers with every
// cache off: asked once (a view carried over the swap, or made again)
// and again (the answers' table).
func TestCachedEqualsUncachedUnderVotes(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 2))
	var first []string
	for i := range 160 {
		first = append(first, votesLine(r, i))
	}
	forEachSource(t, first, func(t *testing.T, e *env) {
		r := rand.New(rand.NewPCG(50, 3))
		lines := slices.Clone(first)
		plain := plainServer(t, e)
		paths := votesPaths()
		compare := func(tick int) {
			t.Helper()
			for _, p := range paths {
				ws, wtag, want := fetch(t, e, plain.URL, p)
				for range 2 {
					if gs, gtag, got := fetch(t, e, e.srv.URL, p); gs != ws || gtag != wtag || got != want {
						t.Fatalf("tick %d, GET %s: cached %d %s\n%s\nuncached %d %s\n%s", tick, p, gs, gtag, got, ws, wtag, want)
					}
				}
			}
		}
		compare(-1)
		users := 0
		for tick := range 24 {
			for range 1 + r.IntN(6) {
				users++
				user, flag := fmt.Sprintf("u%d", users), fmt.Sprintf("v%04d", r.IntN(len(lines)))
				e.exec("INSERT INTO users (id) VALUES (?)", user)
				e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", flag, user, []string{"red", "green"}[r.IntN(2)])
				switch r.IntN(4) {
				case 0:
					e.exec("UPDATE votes SET color = ? WHERE flag_id = ? AND user_id = ?", "red", flag, user)
				case 1:
					e.exec("DELETE FROM votes WHERE flag_id = ? AND user_id = ?", flag, user)
				}
			}
			switch tick % 8 {
			case 5:
				e.exec("UPDATE flags SET text_en = ? WHERE id = ?", "late busy driver", fmt.Sprintf("v%04d", r.IntN(len(lines))))
			case 7:
				lines = append(lines, votesLine(r, len(lines)))
				if _, err := e.db.Import(context.Background(), strings.NewReader(lines[len(lines)-1]), nil); err != nil {
					t.Fatal(err)
				}
			}
			e.reload()
			compare(tick)
		}
	})
}

// A swap of votes alone keeps what the searches ran: asked again, no
// search runs the index, and those whose matched flags no vote touched
// are answered from the answers' table without being paged again; a swap
// that edits a text runs them again.
func TestVotesKeepSearchRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 3))
	var lines []string
	for i := range 120 {
		lines = append(lines, votesLine(r, i))
	}
	e := newEnv(t, "sqlite", lines)
	reg := prometheus.NewRegistry()
	api, err := httpapi.New(httpapi.Options{Store: e.store, CacheBytes: 8 << 20, Now: e.clock.Now, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	e.api, e.srv = api, httptest.NewServer(api.Handler())
	t.Cleanup(func() { e.srv.Close(); api.Close() })
	queries := []string{"bus", "yasli otob", "phone", "money", "driver seat", "telefn"}
	ask := func() {
		for _, q := range queries {
			mustStatus(t, e.get("/api/public/search?q="+url.QueryEscape(q)), 200, "")
		}
	}
	ask()
	runs := counter(t, reg, "flagpole_search_runs_total")
	if runs != float64(len(queries)) {
		t.Fatalf("%v runs for %d queries", runs, len(queries))
	}
	// Votes on one flag that says none of the words asked for: every
	// answer is carried over the swaps, from the answers' table.
	cat := fx{id: "zz", slug: "cat", cat: "SOCIAL", created: base, text: [4]string{"kedi", "cat", "Katze", "gato"}}.line()
	if _, err := e.db.Import(context.Background(), strings.NewReader(cat), nil); err != nil {
		t.Fatal(err)
	}
	e.reload()
	ask()
	hits := answersHits(t, reg)
	for i := range 3 {
		user := fmt.Sprintf("k%d", i)
		e.exec("INSERT INTO users (id) VALUES (?)", user)
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "zz", user, "red")
		e.reload()
	}
	before := counter(t, reg, "flagpole_search_repaged_total")
	ask()
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 2*runs {
		t.Errorf("%v runs after votes on a flag no query matches, want %v (the insert's, none for the votes)", n, 2*runs)
	}
	if n := counter(t, reg, "flagpole_search_repaged_total") - before; n != 0 {
		t.Errorf("%v pages made again after votes no query matched", n)
	}
	if n := answersHits(t, reg) - hits; n != float64(len(queries)) {
		t.Errorf("%v of %d answers after the votes came from the answers' table", n, len(queries))
	}
	// Votes on every flag: the pages are made again, the index not run.
	for i := range lines {
		user := fmt.Sprintf("w%d", i)
		e.exec("INSERT INTO users (id) VALUES (?)", user)
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", fmt.Sprintf("v%04d", i), user, "green")
	}
	e.reload()
	ask()
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 2*runs {
		t.Errorf("%v runs after votes on every flag, want %v", n, 2*runs)
	}
	if n := counter(t, reg, "flagpole_search_repaged_total") - before; n != float64(len(queries)) {
		t.Errorf("%v pages made again after votes on every flag, want %d", n, len(queries))
	}
	// An edit of a text: every query runs again.
	e.exec("UPDATE flags SET text_en = ? WHERE id = ?", "late driver", "v0001")
	e.reload()
	ask()
	if n := counter(t, reg, "flagpole_search_runs_total"); n != 3*runs {
		t.Errorf("%v runs after an edit, want %v", n, 3*runs)
	}
}

// answersHits is the answers' table's hits, from the metrics.
func answersHits(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "flagpole_cache_hits_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "cache" && l.GetValue() == "answers" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatal("no answers' hits in the metrics")
	return 0
}
