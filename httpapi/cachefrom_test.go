package httpapi

import (
	"crypto/sha256"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/flagpole/flagpole/memstore"
)

// TestFlagCachedAcrossLoads: a flag's answers (the flag, its trend) stay
// cached across loads that leave the flag and the trend history as they
// were, and a load that changes the flag answers its new votes at once.
// Keyed by the snapshot's generation, every load under votes emptied the
// cache in effect.
func TestFlagCachedAcrossLoads(t *testing.T) {
	now := time.Now().UTC()
	a, st, get := cachedServer(t)
	ins := []memstore.FlagInput{testInput(1, now), testInput(2, now)}
	b := memstore.NewTrendBuilder(memstore.DayOf(now) - 10)
	b.Add([]byte(ins[0].ID), memstore.DayOf(now)-1, 3, 4)
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, Trends: b.Done(), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	vote := func(i int) {
		t.Helper()
		ins[i].Red++
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: []memstore.FlagInput{ins[i]}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(next)
	}
	paths := []string{"/api/public/flag/" + ins[0].Slug, "/api/public/flag/" + ins[0].Slug + "/trend?days=7"}
	for _, p := range paths {
		get(p)
	}
	found := a.cacheFound()
	vote(1) // another flag: a new snapshot, flag 0 as it was
	for _, p := range paths {
		get(p)
	}
	if f := a.cacheFound(); f != found+2 {
		t.Errorf("after a load that left the flag as it was, %d of its 2 answers came from the cache", f-found)
	}
	// A new trend history, the flag as it was: the trend is rendered again
	// from the new history's points.
	b = memstore.NewTrendBuilder(memstore.DayOf(now) - 10)
	b.Add([]byte(ins[0].ID), memstore.DayOf(now)-1, 77, 4)
	next, err := memstore.Build(st.Snapshot(), memstore.Change{Trends: b.Done(), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(next)
	if body := get(paths[1]); !strings.Contains(body, `"red":77,`) {
		t.Errorf("after a new trend history: %s, want its red 77", body)
	}
	red := func(body string) bool { return strings.Contains(body, `"red":`+strconv.FormatInt(ins[0].Red, 10)+`,`) }
	vote(0)
	for _, p := range paths {
		if body := get(p); !red(body) {
			t.Errorf("GET %s after a vote on the flag: %s, want red %d", p, body, ins[0].Red)
		}
	}
}

// cachedServer serves an API with a response cache over loopback HTTP
// from a store the test fills; get asks for a path with a key and returns
// the body of its 200 once the cache has taken it in.
func cachedServer(t *testing.T) (*API, *memstore.Store, func(path string) string) {
	t.Helper()
	return cachedServerAt(t, nil)
}

// cachedServerAt is cachedServer with the clock now (nil: time.Now).
func cachedServerAt(t *testing.T, now func() time.Time) (*API, *memstore.Store, func(path string) string) {
	t.Helper()
	return cachedServerOf(t, now, 1<<20)
}

// cachedServerOf is cachedServerAt with caches of cacheBytes.
func cachedServerOf(t *testing.T, now func() time.Time, cacheBytes int64) (*API, *memstore.Store, func(path string) string) {
	t.Helper()
	a, st, do := keyedServer(t, now, cacheBytes)
	return a, st, func(path string) string {
		t.Helper()
		res, body := do(path)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
		}
		a.cache.rc.Wait() // ristretto admits a Set asynchronously
		return string(body)
	}
}

// keyedServer serves a new API (clock now, nil: the real one) over an
// empty store holding one key of a limit no test reaches, and returns a
// function that GETs a path with that key: the answer and its body.
func keyedServer(t *testing.T, now func() time.Time, cacheBytes int64) (*API, *memstore.Store, func(path string) (*http.Response, []byte)) {
	t.Helper()
	st := &memstore.Store{}
	a, err := New(Options{Store: st, CacheBytes: cacheBytes, Now: now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	const secret = "grf_0123456789abcdef0123456789abcdef"
	st.SetKeys(memstore.NewKeySet([][sha256.Size]byte{sha256.Sum256([]byte(secret))}, []memstore.Key{{ID: "k1", Limit: 1 << 30}}, time.Now()))
	return a, st, func(path string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
}

// TestCachesLetGoOfReplacedData: a response kept for a flag does not keep
// alive what later loads replaced. A trend's entry named the trend history
// it was made from by pointer, and every load that finds the daily
// snapshots changed makes a new history (10 MB at 100,000 flags): each
// entry not asked for again held one. And an entry holding its flag held with it the memory the flag
// was carved from, shared with others (a full load carves them together):
// the entries name flags by their versions.
func TestCachesLetGoOfReplacedData(t *testing.T) {
	now := time.Now().UTC()
	_, st, get := cachedServer(t)
	ins := testInputs(1100, now)                     // a full load carves them together
	long := strings.Repeat("long description ", 200) // a body for the response cache
	ins[2].Description[memstore.EN] = &long
	for _, i := range []int{0, 2} { // found by one search, which a view keeps
		ins[i].Text[memstore.EN] += " zebra"
	}
	history := func(red int64) *memstore.Trends {
		b := memstore.NewTrendBuilder(memstore.DayOf(now) - 10)
		b.Add([]byte(ins[0].ID), memstore.DayOf(now)-1, red, 4)
		return b.Done()
	}
	load := func(ch memstore.Change) {
		t.Helper()
		ch.LoadedAt = now
		s, err := memstore.Build(st.Snapshot(), ch)
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(s)
	}
	load(memstore.Change{Full: true, Flags: ins, Trends: history(3)})
	var old []weak.Pointer[memstore.Flag]
	for _, i := range []int{0, 2} {
		f, _, _ := st.Snapshot().FlagBySlug(ins[i].Slug)
		old = append(old, weak.Make(f))
	}
	oldTrends := weak.Make(st.Snapshot().Trends)

	for _, i := range []int{0, 2} {
		get("/api/public/flag/" + ins[i].Slug + "/trend?days=7")
		get("/api/public/flag/" + ins[i].Slug)
	}
	// A search and a list page that show them: their views outlive a swap.
	if body := get("/api/public/search?q=zebra"); !strings.Contains(body, `"count":2,`) {
		t.Fatalf("zebra: %s", body)
	}
	get("/api/public/flags?sort=newest&limit=5")
	// A new snapshot of flag 0's day: a new history. Then every flag's votes
	// change in a full load: every flag a new one.
	load(memstore.Change{Trends: history(5)})
	for i := range ins {
		ins[i].Green += 2
	}
	load(memstore.Change{Full: true, Flags: ins})
	// Asked for: another flag; flag 0's and 2's entries are stale.
	get("/api/public/flag/" + ins[1].Slug + "/trend?days=7")
	get("/api/public/flag/" + ins[1].Slug)
	load(memstore.Change{Trends: history(6)}) // nothing holds the snapshots before

	for range 3 {
		runtime.GC()
	}
	if oldTrends.Value() != nil {
		t.Error("a trend history two loads old is still alive: a cached trend holds it")
	}
	for k, w := range old {
		if w.Value() != nil {
			t.Errorf("flag %d, replaced by a load, is still alive: a cached response, search or list page holds it", []int{0, 2}[k])
		}
	}
}

// TestDetailsHitRatio: a flag asked for twice is answered the second time
// by the details' table, and the hit ratio counts both lookups: the
// response cache's miss, then the table's hit.
func TestDetailsHitRatio(t *testing.T) {
	now := time.Now().UTC()
	a, st, get := cachedServer(t)
	in := testInput(1, now)
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: []memstore.FlagInput{in}, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	for n, want := range []float64{0, 0.5, 2.0 / 3} {
		get("/api/public/flag/" + in.Slug)
		if hr := a.CacheHitRatio(); hr != want {
			t.Errorf("after %d requests for a flag, hit ratio %v, want %v", n+1, hr, want)
		}
	}
	if found, all := a.details.lookups(); found != 2 || all != 2 {
		t.Errorf("the details' table answered %d of %d lookups, want 2 of 2", found, all)
	}
}

// cacheFound is the lookups the response cache and the details' table
// answered.
func (a *API) cacheFound() uint64 {
	found, _ := a.cache.lookups()
	df, _ := a.details.lookups()
	tf, _ := a.trends.lookups()
	return found + df + tf
}

// TestTrendsTable: a short trend answer comes from the trends' table on a
// second request, each number of days and each day its own entry (asking
// for 7 days does not push out 30), a new day renders it again, and a
// history too long for the table is answered whole by the response cache.
func TestTrendsTable(t *testing.T) {
	day := time.Now().UTC()
	clock := func() time.Time { return day }
	a, st, get := cachedServerAt(t, clock)
	ins := []memstore.FlagInput{testInput(1, day), testInput(2, day)}
	today := memstore.DayOf(day)
	b := memstore.NewTrendBuilder(today - memstore.TrendDays)
	b.Add([]byte(ins[0].ID), today-1, 3, 4)
	for d := today - 100; d <= today+10; d++ {
		b.Add([]byte(ins[1].ID), d, 1e9+int64(d%17), 5) // a long history: ~110 bytes a day
	}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, Trends: b.Done(), LoadedAt: day})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	short := func(days int) string { return "/api/public/flag/" + ins[0].Slug + "/trend?days=" + strconv.Itoa(days) }
	hits := func() uint64 { n, _ := a.trends.lookups(); return n }
	first := map[int]string{7: get(short(7)), 30: get(short(30))}
	if h := hits(); h != 0 {
		t.Fatalf("%d hits before any answer was asked for twice", h)
	}
	for _, days := range []int{7, 30, 7, 30} {
		if body := get(short(days)); body != first[days] {
			t.Errorf("days=%d again: %s, want %s", days, body, first[days])
		}
	}
	if h := hits(); h != 4 {
		t.Errorf("%d of 4 repeated answers from the table", h)
	}
	// One flag's trends for eight numbers of days: each kept, where the
	// four ways of one set would hold four.
	for range 2 {
		for days := 1; days <= 8; days++ {
			get(short(days))
		}
	}
	if h := hits(); h != 4+1+8 { // days=7 was kept already
		t.Errorf("eight days of one flag asked twice: %d hits from the table, want 9", h-4)
	}
	base := hits()
	day = day.Add(8 * 24 * time.Hour) // a week on: the window has moved past the point
	if moved := get(short(7)); hits() != base || !strings.Contains(moved, `"count":0`) {
		t.Errorf("a week on: %d hits (want %d), %s", hits(), base, moved)
	}
	long := "/api/public/flag/" + ins[1].Slug + "/trend?days=90"
	body := get(long)
	if len(body) <= maxDetailBody || !strings.Contains(body, `"count":90`) {
		t.Fatalf("the long history: %d bytes, %.80s", len(body), body)
	}
	found, _ := a.cache.lookups()
	if again := get(long); again != body {
		t.Errorf("the long history again: a different body")
	}
	if f, _ := a.cache.lookups(); f != found+1 || hits() != base {
		t.Errorf("the long history again: %d response-cache hits, %d table hits; want 1 and %d", f-found, hits(), base)
	}
}

// TestTrendsTableHoldsFullHistories: at the default cache_mb (64), the
// trends' table holds a thousand flags' full 90-day histories (~7.5 KB a
// body, counted at twice that): a client cycling through them is answered
// from the table on its second round, not by a render each (with an
// eighth of the budget, a third of them were).
func TestTrendsTableHoldsFullHistories(t *testing.T) {
	day := time.Now().UTC()
	a, st, get := cachedServerOf(t, func() time.Time { return day }, 64<<20)
	today := memstore.DayOf(day)
	b := memstore.NewTrendBuilder(today - memstore.TrendDays)
	ins := make([]memstore.FlagInput, 1000)
	for i := range ins {
		ins[i] = testInput(i, day)
		for d := today - 89; d <= today; d++ {
			b.Add([]byte(ins[i].ID), d, 100+int64(i%900)+int64(d%13), 2000+int64(d%7))
		}
	}
	s, err := memstore.Build(nil, memstore.Change{Full: true, Flags: ins, Trends: b.Done(), LoadedAt: day})
	if err != nil {
		t.Fatal(err)
	}
	st.SetSnapshot(s)
	path := func(i int) string { return "/api/public/flag/" + ins[i].Slug + "/trend?days=90" }
	if body := get(path(0)); len(body) < 7000 || len(body) > maxTrendBody || !strings.Contains(body, `"count":90`) {
		t.Fatalf("a full history: %d bytes, %.80s", len(body), body)
	}
	for i := 1; i < len(ins); i++ {
		get(path(i))
	}
	before, _ := a.trends.lookups()
	for i := range ins {
		get(path(i))
	}
	if found, _ := a.trends.lookups(); found-before < 990 {
		t.Errorf("the second round of 1,000 full histories: %d answered by the trends' table, want at least 990", found-before)
	}
}

// A client cycling through as many flags as a third, or two thirds, of
// the details' table holds finds nearly all of them kept on its second
// round. With one set a slug, the sets that more slugs fall in than they
// have ways lost an answer on every request to them: a second round of a
// third found 95.5 %, of two thirds 72 %.
func TestDetailsTableHoldsAThirdOfItsEntries(t *testing.T) {
	for _, c := range []struct{ num, den, permille int }{{1, 3, 995}, {2, 3, 990}} {
		day := time.Now().UTC()
		a, st, get := cachedServerOf(t, func() time.Time { return day }, 64<<20)
		n := int(a.details.sets) * setWays * c.num / c.den
		ins := testInputs(n, day)
		s := fullSnapshot(t, ins, day)
		st.SetSnapshot(s)
		for i := range ins {
			get("/api/public/flag/" + ins[i].Slug)
		}
		before, _ := a.details.lookups()
		for i := range ins {
			get("/api/public/flag/" + ins[i].Slug)
		}
		if found, _ := a.details.lookups(); found-before < uint64(n*c.permille/1000) {
			t.Errorf("the second round of %d flags (%d/%d of the table): %d answered by the details' table, want at least %.1f %%",
				n, c.num, c.den, found-before, float64(c.permille)/10)
		}
	}
}
