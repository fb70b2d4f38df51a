package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

var seedArgs = []string{"--flags", "50", "--users", "20", "--days", "10", "--seed", "7"}

// withoutClock drops the fields that depend on the wall clock (createdAt,
// and the at of every snapshot) and renders each record again.
func withoutClock(t *testing.T, recs []map[string]any) []string {
	t.Helper()
	out := make([]string, len(recs))
	for i, r := range recs {
		delete(r, "createdAt")
		if snaps, ok := r["snapshots"].([]any); ok {
			for _, s := range snaps {
				delete(s.(map[string]any), "at")
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// seedConcurrently seeds every database with the same arguments at the
// same moment, so that their clock-anchored dates agree.
func seedConcurrently(t *testing.T, dbs []string, args []string) {
	t.Helper()
	var wg sync.WaitGroup
	results := make([]result, len(dbs))
	for i, db := range dbs {
		wg.Go(func() {
			results[i] = runCLI(t, noEnv, nil, append([]string{"seed", "--db", db}, args...)...)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("seed %s: %v\nstderr:\n%s", dbs[i], r.err, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("seed: stdout = %q, want nothing (messages go to stderr)", r.stdout)
		}
	}
}

func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := loadertest.URL(t, loader.SQLite), loadertest.URL(t, loader.SQLite)
	seedConcurrently(t, []string{a, b}, seedArgs)

	gotA, gotB := exportRecords(t, a), exportRecords(t, b)
	if len(gotA) != 50 || len(gotB) != 50 {
		t.Fatalf("export: got %d and %d flags, want 50 each", len(gotA), len(gotB))
	}
	linesA, linesB := withoutClock(t, gotA), withoutClock(t, gotB)
	for i := range linesA {
		if linesA[i] != linesB[i] {
			t.Errorf("export line %d differs between two seeds with --seed 7:\n a: %s\n b: %s", i+1, linesA[i], linesB[i])
		}
	}

	// Another seed gives other data.
	c := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", c, "--flags", "50", "--users", "20", "--days", "10", "--seed", "8")
	if linesC := withoutClock(t, exportRecords(t, c)); strings.Join(linesC, "\n") == strings.Join(linesA, "\n") {
		t.Error("--seed 7 and --seed 8 gave the same data")
	}
}

func TestSeedRefusesANonEmptyDatabase(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", db, "--flags", "5", "--users", "3", "--days", "2", "--seed", "1")
	before := exportText(t, db)

	msg := mustFail(t, noEnv, nil, "seed", "--db", db, "--flags", "5", "--users", "3", "--days", "2", "--seed", "2")
	if !strings.Contains(msg, "already") || !strings.Contains(msg, "5 flags") {
		t.Errorf("seed into a seeded database: error %q, want it to say the database already holds 5 flags", msg)
	}
	if after := exportText(t, db); after != before {
		t.Error("a refused seed changed the database")
	}
}

func TestSeedBadArguments(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no flags", []string{"--flags", "0"}},
		{"no users", []string{"--users", "0"}},
		{"negative days", []string{"--days", "-1"}},
		{"not a number", []string{"--flags", "many"}},
		{"unknown flag", []string{"--colour", "red"}},
		{"too many users", []string{"--flags", "10", "--users", "99999999999999"}},
		{"too many flags", []string{"--flags", "10000001"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustFail(t, noEnv, nil, append([]string{"seed", "--db", db}, tc.args...)...)
			// Refused before any database is made: no new file.
			fresh := filepath.Join(t.TempDir(), "never.db")
			mustFail(t, noEnv, nil, append([]string{"seed", "--db", "sqlite:" + fresh}, tc.args...)...)
			if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused seed made %s: %v", fresh, err)
			}
		})
	}
	if got := exportText(t, db); got != "" {
		t.Errorf("failed seeds left flags behind:\n%s", got)
	}
}

// seedFacts are what the seeded data set must show.
type seedFacts struct {
	categories, contexts, dominants, regions map[string]bool
	worldFlags, snapshots                    int
}

func factsOf(t *testing.T, recs []map[string]any) seedFacts {
	t.Helper()
	f := seedFacts{categories: map[string]bool{}, contexts: map[string]bool{}, dominants: map[string]bool{},
		regions: map[string]bool{}}
	for _, r := range recs {
		id := r["id"]
		f.categories[r["category"].(string)] = true
		for _, c := range r["contexts"].([]any) {
			f.contexts[c.(string)] = true
		}
		for _, lang := range []string{"tr", "en", "de", "es"} {
			if s, _ := r["text"].(map[string]any)[lang].(string); strings.TrimSpace(s) == "" {
				t.Errorf("flag %s: text.%s is empty", id, lang)
			}
		}
		if reg, ok := r["region"].(string); ok {
			f.regions[reg] = true
		} else if r["region"] != nil {
			t.Errorf("flag %s: region = %v, want null or a code", id, r["region"])
		} else {
			f.worldFlags++
		}
		f.snapshots += len(r["snapshots"].([]any))
		if r["status"] != "APPROVED" {
			continue
		}
		votes := r["votes"].(map[string]any)
		red, _ := strconv.ParseInt(string(votes["red"].(json.Number)), 10, 64)
		green, _ := strconv.ParseInt(string(votes["green"].(json.Number)), 10, 64)
		want := dominantOf(red, green)
		if got := r["dominant"]; got != nil && got != want {
			t.Errorf("flag %s: red %d green %d: export says dominant %v, want %s", id, red, green, got, want)
		}
		f.dominants[want] = true
	}
	return f
}

// dominantOf is the contract's rule, written out independently.
func dominantOf(red, green int64) string {
	total := red + green
	switch {
	case total > 0 && 5*red >= 3*total:
		return "red"
	case total > 0 && 5*green >= 3*total:
		return "green"
	}
	return "yellow"
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func checkSeedFacts(t *testing.T, f seedFacts, wantCategories bool) {
	t.Helper()
	if wantCategories {
		for _, c := range memstore.Categories {
			if !f.categories[c] {
				t.Errorf("category %s is missing; got %v", c, keysOf(f.categories))
			}
		}
	}
	for _, c := range memstore.Contexts {
		if !f.contexts[c] {
			t.Errorf("context %s is missing; got %v", c, keysOf(f.contexts))
		}
	}
	for _, d := range []string{"red", "green", "yellow"} {
		if !f.dominants[d] {
			t.Errorf("no APPROVED flag is dominantly %s; got %v", d, keysOf(f.dominants))
		}
	}
	if f.worldFlags == 0 {
		t.Error("no flag has a null (world) region")
	}
	if len(f.regions) < 2 {
		t.Errorf("got regions %v, want at least two distinct ones", keysOf(f.regions))
	}
	if f.snapshots == 0 {
		t.Error("no flag has snapshots")
	}
}

func TestSeedData(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, append([]string{"seed", "--db", db}, seedArgs...)...)
	recs := exportRecords(t, db)
	if len(recs) != 50 {
		t.Fatalf("export: got %d flags, want 50", len(recs))
	}
	f := factsOf(t, recs)

	t.Run("contexts, colours, regions, snapshots", func(t *testing.T) {
		checkSeedFacts(t, f, false)
	})
	t.Run("every category with 50 flags", func(t *testing.T) {
		checkSeedFacts(t, f, true)
	})
	t.Run("snapshots cover --days", func(t *testing.T) {
		for _, r := range recs {
			if n := len(r["snapshots"].([]any)); n > 10 {
				t.Errorf("flag %s has %d snapshots, want at most --days 10", r["id"], n)
			}
		}
	})
}

func TestSeedDataLarge(t *testing.T) {
	// With enough flags to go round the statements, every category shows.
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", db, "--flags", "200", "--users", "20", "--days", "3", "--seed", "3")
	recs := exportRecords(t, db)
	if len(recs) != 200 {
		t.Fatalf("export: got %d flags, want 200", len(recs))
	}
	checkSeedFacts(t, factsOf(t, recs), true)
}
