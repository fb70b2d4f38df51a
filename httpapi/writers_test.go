package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// searchSlugs is the slugs /search answers for q, sorted.
func searchSlugs(t testing.TB, e *env, q string) []string {
	t.Helper()
	r := e.get("/api/public/search?q=" + q)
	mustStatus(t, r, 200, "")
	return slices.Sorted(slices.Values(slugs(data(t, r))))
}

func votesOf(t testing.TB, e *env, slug string) (red, green float64) {
	t.Helper()
	r := e.get("/api/public/flag/" + slug)
	mustStatus(t, r, 200, "")
	v := r.json["votes"].(map[string]any)
	return v["red"].(float64), v["green"].(float64)
}

// TestWriters runs the voting application's statements of the contract
// and checks the API after the next load.
func TestWriters(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		const slug = "red-exactly-sixty" // imported with red 3, green 2
		e.exec("INSERT INTO users (id) VALUES (?)", "u1")
		e.exec("INSERT INTO users (id) VALUES (?)", "u2")
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f01", "u1", "red")
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f01", "u2", "green")
		if r, g := votesOf(t, e, slug); r != 3 || g != 2 {
			t.Fatalf("before the load: %v/%v, want the old snapshot 3/2", r, g)
		}
		e.reload()
		if r, g := votesOf(t, e, slug); r != 4 || g != 3 {
			t.Fatalf("after inserts: %v/%v, want 4/3 (imported counts plus votes)", r, g)
		}
		e.exec("UPDATE votes SET color = ? WHERE flag_id = ? AND user_id = ?", "red", "f01", "u2")
		e.reload()
		if r, g := votesOf(t, e, slug); r != 5 || g != 2 {
			t.Fatalf("after update: %v/%v, want 5/2", r, g)
		}
		e.exec("UPDATE votes SET color = ? WHERE flag_id = ? AND user_id = ?", "red", "f01", "u2") // no change
		e.exec("DELETE FROM votes WHERE flag_id = ? AND user_id = ?", "f01", "u1")
		e.reload()
		if r, g := votesOf(t, e, slug); r != 4 || g != 2 {
			t.Fatalf("after delete: %v/%v, want 4/2", r, g)
		}
		stats := e.get("/api/public/stats").json
		if u := stats["users"].(map[string]any)["total"]; u != 2.0 {
			t.Errorf("users.total %v, want 2", u)
		}
		if v := stats["votes"].(map[string]any); v["last24h"] != 1.0 || v["last30d"] != 1.0 {
			t.Errorf("votes windows %v, want the one remaining vote", v)
		}

		// Status changes: rejected disappears everywhere, approved appears.
		if hits := searchSlugs(t, e, "exactly"); !slices.Equal(hits, []string{"green-exactly-sixty", slug}) {
			t.Fatalf("search for %q before the rejection: %v, want green-exactly-sixty and %s", "exactly", hits, slug)
		}
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "REJECTED", "f01")
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "APPROVED", "f13")
		e.reload()
		mustStatus(t, e.get("/api/public/flag/"+slug), 404, "not_found")
		mustStatus(t, e.get("/api/public/flag/pending-one"), 200, "")
		windows := func(want24h, want7d, want30d float64) {
			t.Helper()
			v := e.get("/api/public/stats").json["votes"].(map[string]any)
			if v["last24h"] != want24h || v["last7d"] != want7d || v["last30d"] != want30d {
				t.Errorf("votes windows %v, want last24h %v, last7d %v, last30d %v", v, want24h, want7d, want30d)
			}
		}
		windows(0, 0, 0) // the remaining vote's flag is rejected
		r := e.get("/api/public/flags?limit=100")
		if r.json["total"] != float64(approved()) {
			t.Errorf("total %v, want %d", r.json["total"], approved())
		}
		for _, s := range slugs(data(t, r)) {
			if s == slug {
				t.Error("a rejected flag is still listed")
			}
		}
		if hits := searchSlugs(t, e, "exactly"); !slices.Equal(hits, []string{"green-exactly-sixty"}) {
			t.Errorf("search for %q after the rejection: %v, want green-exactly-sixty alone", "exactly", hits)
		}
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "APPROVED", "f01")
		e.reload()
		if r, g := votesOf(t, e, slug); r != 4 || g != 2 {
			t.Errorf("re-approved: %v/%v", r, g)
		}
		windows(1, 1, 1)
		// A vote on a flag that is not approved moves nothing visible.
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f14", "u1", "red")
		e.reload()
		mustStatus(t, e.get("/api/public/flag/rejected-one"), 404, "not_found")
		windows(1, 1, 1)
		// Older votes (written with their time, as a backfill would) count
		// in the windows they fall in; a tick reads them with their flag.
		e.exec("INSERT INTO users (id) VALUES (?)", "u3")
		e.exec("INSERT INTO users (id) VALUES (?)", "u4")
		old := func(d time.Duration) string { return time.Now().UTC().Add(-d).Format("2006-01-02T15:04:05.000Z") }
		e.exec("INSERT INTO votes (flag_id, user_id, color, created_at) VALUES (?, ?, ?, ?)", "f01", "u3", "green", old(3*24*time.Hour))
		e.exec("INSERT INTO votes (flag_id, user_id, color, created_at) VALUES (?, ?, ?, ?)", "f01", "u4", "green", old(31*24*time.Hour))
		e.reload()
		windows(1, 2, 2)
		e.exec("DELETE FROM votes WHERE flag_id = ? AND user_id = ?", "f01", "u3")
		e.reload()
		windows(1, 1, 1)
	})
}

// TestSwapUnderLoad reloads snapshots while requests run: every answer is
// whole and consistent with one snapshot. Run with -race.
func TestSwapUnderLoad(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	e.exec("INSERT INTO users (id) VALUES (?)", "u1")
	var stop atomic.Bool
	var wg sync.WaitGroup
	var failures atomic.Int64
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/api/public/flags?limit=100", "/api/public/flag/red-exactly-sixty",
				"/api/public/stats", "/api/public/search?q=bus", "/api/public/flags?dominant=red&limit=3"}
			for i := 0; !stop.Load(); i++ {
				r := e.get(paths[i%len(paths)])
				if r.status != 200 {
					failures.Add(1)
					continue
				}
				if d, ok := r.json["data"].([]any); ok && r.json["count"] != float64(len(d)) {
					failures.Add(1)
				}
			}
		}()
	}
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		color := []string{"red", "green"}[i%2]
		if i == 0 {
			e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f01", "u1", color)
		} else {
			e.exec("UPDATE votes SET color = ? WHERE flag_id = ? AND user_id = ?", color, "f01", "u1")
		}
		if err := e.ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d requests failed or were inconsistent during swaps", n)
	}
	if got := e.store.Snapshot().Gen; got < 31 {
		t.Errorf("generation %d: the loads did not swap", got)
	}
}

// TestExportImport exports a database and imports it into an empty one:
// both serve the same API.
func TestExportImport(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, a *env) {
		var buf bytes.Buffer
		n, err := a.db.Export(context.Background(), &buf, nil)
		if err != nil || n != len(fixtures) {
			t.Fatalf("export: %d flags, %v", n, err)
		}
		b := newEnv(t, a.source, nil)
		if _, err := b.db.Import(context.Background(), bytes.NewReader(buf.Bytes()), nil); err != nil {
			t.Fatalf("import: %v", err)
		}
		b.reload()
		paths := []string{"/api/public/categories", "/api/public/regions", "/api/public/search?q=otob",
			"/api/public/search?q=the"}
		for _, s := range []string{"net", "total", "controversial", "newest"} {
			paths = append(paths, "/api/public/flags?limit=100&sort="+s, "/api/public/flags?limit=100&order=desc&sort="+s)
		}
		for _, f := range fixtures {
			paths = append(paths, "/api/public/flag/"+f.slug, "/api/public/flag/"+f.slug+"/trend?days=90")
		}
		for _, p := range paths {
			ra, rb := a.get(p, "X-Request-Id: same"), b.get(p, "X-Request-Id: same")
			if ra.status != rb.status || !bytes.Equal(ra.body, rb.body) {
				t.Errorf("%s differs:\n%s\n%s", p, truncate(ra.body), truncate(rb.body))
			}
		}
		sa, sb := a.get("/api/public/stats").json, b.get("/api/public/stats").json
		if fmt.Sprint(sa["flags"], sa["topCategories"], sa["votes"].(map[string]any)["total"]) !=
			fmt.Sprint(sb["flags"], sb["topCategories"], sb["votes"].(map[string]any)["total"]) {
			t.Errorf("stats differ: %v / %v", sa, sb)
		}
		// Importing again changes nothing (idempotent).
		if _, err := b.db.Import(context.Background(), bytes.NewReader(buf.Bytes()), nil); err != nil {
			t.Fatal(err)
		}
		b.reload()
		if r := b.get("/api/public/flags"); r.json["total"] != float64(approved()) {
			t.Errorf("after a second import: total %v", r.json["total"])
		}
	})
}

// TestImportAllOrNothing: a bad line names itself and writes nothing.
func TestImportAllOrNothing(t *testing.T) {
	for _, src := range loadertest.Sources(t) {
		t.Run(string(src), func(t *testing.T) {
			e := newEnv(t, src, nil)
			lines := fixtureLines()[:3]
			lines = append(lines, `{"id":"x","slug":"x","category":"NOPE"}`)
			_, err := e.db.Import(context.Background(), bytes.NewReader([]byte(joinLines(lines))), nil)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte("line 4")) {
				t.Fatalf("error %v, want one naming line 4", err)
			}
			e.reload()
			if r := e.get("/api/public/flags"); r.json["total"] != 0.0 {
				t.Errorf("a failed import wrote %v flags", r.json["total"])
			}
		})
	}
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestTrendHistoryPending: a starting server is ready on flags before its
// trend history is loaded, and /trend says so honestly until it is.
func TestTrendHistoryPending(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	e.store.SetSnapshot(nil)
	ld := loader.New(e.db, e.store, loader.Options{})
	if err := ld.LoadFlagsOnly(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, e.get("/api/public/flags"), 200, "")
	r := e.get("/api/public/flag/red-exactly-sixty/trend")
	mustStatus(t, r, 503, "unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if err := ld.LoadFlags(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = e.get("/api/public/flag/red-exactly-sixty/trend")
	mustStatus(t, r, 200, "")
	if r.json["count"] != 4.0 {
		t.Errorf("count %v after the history loaded", r.json["count"])
	}
}

// TestBulkChanges: the loader reads what the bulk commands wrote (a day's
// snapshot, an import) on its next tick, and a quiet tick reads nothing.
func TestBulkChanges(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		ctx := context.Background()
		ld := loader.New(e.db, e.store, loader.Options{})
		e.store.SetSnapshot(nil)
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := ld.Status().LastRows; rows != 0 {
			t.Errorf("a quiet tick read %d rows, want 0", rows)
		}
		if r := e.get("/api/public/flag/tie-a/trend"); r.json["count"] != 0.0 {
			t.Fatalf("tie-a has snapshots already: %s", r.body)
		}
		if _, err := e.db.SnapshotDay(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
		r := e.get("/api/public/flag/tie-a/trend")
		if r.json["count"] != 1.0 {
			t.Fatalf("the day's snapshot did not arrive: %s", r.body)
		}
		if rows := ld.Status().LastRows; rows > len(fixtures)+5 {
			t.Errorf("a snapshot tick read %d rows: more than the day", rows)
		}
		// An import, with a flag created long ago (its updated_at is now,
		// but a bulk write is announced, not guessed from timestamps).
		line := fx{id: "f90", slug: "imported-late", cat: "SOCIAL", red: 1, green: 9, created: base}.line()
		if _, err := e.db.Import(ctx, strings.NewReader(line), nil); err != nil {
			t.Fatal(err)
		}
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
		mustStatus(t, e.get("/api/public/flag/imported-late"), 200, "")
		if !ld.Status().LastFull {
			t.Error("an import must make the next load a full one")
		}
	})
}

// TestSlowCommit: on PostgreSQL a vote whose transaction stays open across
// ticks (far past the overlap) shows on the first tick after its commit:
// the ticks do not move their watermark past the start of a transaction
// still open.
func TestSlowCommit(t *testing.T) {
	e := newEnv(t, loader.Postgres, fixtureLines())
	ctx := context.Background()
	ld := loader.New(e.db, e.store, loader.Options{})
	if err := ld.LoadFlags(ctx); err != nil {
		t.Fatal(err)
	}
	const slug = "red-exactly-sixty" // imported with red 3, green 2
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{"INSERT INTO users (id) VALUES ('slow')",
		"INSERT INTO votes (flag_id, user_id, color) VALUES ('f01', 'slow', 'red')"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // ticks while the vote waits for its commit
		time.Sleep(50 * time.Millisecond) // far past the overlap, on purpose
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if r, _ := votesOf(t, e, slug); r != 3 {
		t.Fatalf("red %v before the commit, want 3", r)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := ld.LoadFlags(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _ := votesOf(t, e, slug); r != 4 {
		t.Errorf("red %v on the first tick after a slow commit, want 4", r)
	}

	// A transaction that only reads holds nothing back: with one open, a
	// vote is read on the next tick and not again on the one after.
	ro, err := e.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Rollback()
	var one int
	if err := ro.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f02", "slow", "green")
	for i, want := range []int{1, 0} {
		time.Sleep(20 * time.Millisecond) // past the overlap, on purpose: ticks apart
		if err := ld.LoadFlags(ctx); err != nil {
			t.Fatal(err)
		}
		if rows := ld.Status().LastRows; (want == 0) != (rows == 0) {
			t.Errorf("tick %d with a reading transaction open read %d rows, want %d", i+1, rows, want)
		}
	}
}
