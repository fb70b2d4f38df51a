package loader_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

type seededText struct {
	Slug   string
	Status string
	TR     string `db:"text_tr"`
	EN     string `db:"text_en"`
	DE     string `db:"text_de"`
	ES     string `db:"text_es"`
}

func seedTexts(t *testing.T, flags int) []seededText {
	t.Helper()
	db, _ := loadertest.Open(t, loader.SQLite)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seed(t, db, loader.SeedOptions{Flags: flags, Users: 3, Days: 1, Seed: 5})
	var rows []seededText
	if err := db.SelectContext(ctx, &rows, "SELECT slug, status, text_tr, text_en, text_de, text_es FROM flags ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if len(rows) != flags {
		t.Fatalf("seeded %d flags, want %d", len(rows), flags)
	}
	return rows
}

// The demo size gives every flag its own text in every language (as
// search compares them) and the statement's slug; every statement is used
// and served (approved).
func TestSeedDemoHasNoRepeatedText(t *testing.T) {
	t.Parallel()
	sts, err := loader.DemoStatements()
	if err != nil {
		t.Fatal(err)
	}
	rows := seedTexts(t, loader.DemoSize())
	bySlug := map[string]loader.Statement{}
	for _, st := range sts {
		bySlug[st.Slug] = st
	}
	seen := [memstore.NumLangs]map[string]string{{}, {}, {}, {}}
	for _, r := range rows {
		st, ok := bySlug[r.Slug]
		if !ok {
			t.Errorf("flag %s is no statement's slug, or a second flag of one", r.Slug)
			continue
		}
		delete(bySlug, r.Slug)
		if r.Status != "APPROVED" {
			t.Errorf("flag %s is %s: the demo serves every statement", r.Slug, r.Status)
		}
		for l, text := range [...]string{r.TR, r.EN, r.DE, r.ES} {
			if text != st.Text[memstore.LangCodes[l]] {
				t.Errorf("flag %s: text.%s %q, want the statement's %q", r.Slug, memstore.LangCodes[l], text, st.Text[memstore.LangCodes[l]])
			}
			key := strings.Join(memstore.Words(text), " ")
			if prev, dup := seen[l][key]; dup {
				t.Errorf("flags %s and %s have the same %s text %q", prev, r.Slug, memstore.LangCodes[l], text)
			}
			seen[l][key] = r.Slug
		}
	}
	if len(bySlug) > 0 {
		t.Errorf("%d statements have no flag", len(bySlug))
	}
}

// Past the demo size (bench data sets) statements repeat, each repeat with
// a numbered slug, and no slug twice.
func TestSeedBeyondTheStatementsNumbersSlugs(t *testing.T) {
	t.Parallel()
	n := loader.DemoSize()
	rows := seedTexts(t, n+3)
	slugs := map[string]bool{}
	for _, r := range rows {
		if slugs[r.Slug] {
			t.Errorf("slug %s twice", r.Slug)
		}
		slugs[r.Slug] = true
	}
	statuses := map[string]int{}
	for _, r := range rows {
		statuses[r.Status]++
	}
	if statuses["APPROVED"] < n {
		t.Errorf("statuses %v: every statement's first flag must be approved", statuses)
	}
	for i, r := range rows[n:] {
		first := rows[i]
		if want := first.Slug + "-2"; r.Slug != want || r.EN != first.EN {
			t.Errorf("flag %d: slug %s text %q, want %s with the text of flag %d", n+i+1, r.Slug, r.EN, want, i+1)
		}
	}
}
