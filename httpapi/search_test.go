package httpapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		search := func(q string) ([]string, result) {
			t.Helper()
			r := e.get("/api/public/search?q=" + url.QueryEscape(q))
			mustStatus(t, r, 200, "")
			items := data(t, r)
			if r.json["count"] != float64(len(items)) {
				t.Errorf("%q: count %v for %d items", q, r.json["count"], len(items))
			}
			if r.json["q"] != q {
				t.Errorf("q echoed as %q, want %q", r.json["q"], q)
			}
			for i, it := range items {
				if _, ok := it["createdAt"]; ok {
					t.Errorf("search items have no createdAt: %v", it)
				}
				rank := it["rank"].(float64)
				if i > 0 {
					prev := items[i-1]
					pr := prev["rank"].(float64)
					if rank > pr || (rank == pr && total(it) > total(prev)) ||
						(rank == pr && total(it) == total(prev) && it["id"].(string) < prev["id"].(string)) {
						t.Errorf("%q: not ordered by rank desc, total desc, id asc: %v", q, slugs(items))
					}
				}
			}
			return slugs(items), r
		}
		tests := []struct {
			q    string
			want []string // every slug that must be found
			not  []string // slugs that must not be
		}{
			// Turkish: ş ı ğ ç ö ü and the dotted and dotless i.
			{q: "yasli", want: []string{"seat-for-the-elderly"}},
			{q: "YAŞLI", want: []string{"seat-for-the-elderly"}},
			{q: "Yaşlılara", want: []string{"seat-for-the-elderly"}},
			{q: "yaslilara otobuste", want: []string{"seat-for-the-elderly"}},
			{q: "otobus", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			{q: "ISTANBUL", want: []string{"never-greets-neighbours"}},
			{q: "istanbul", want: []string{"never-greets-neighbours"}},
			{q: "İstanbul", want: []string{"never-greets-neighbours"}},
			{q: "isik", want: []string{"child-says-sorry"}},
			{q: "IŞIK", want: []string{"child-says-sorry"}},
			{q: "soforuyle", want: []string{"bus-driver-friend"}},
			// German: ß, ä, ö, ü.
			{q: "strasse", want: []string{"never-greets-neighbours"}},
			{q: "Straße", want: []string{"never-greets-neighbours"}},
			{q: "grusst", want: []string{"never-greets-neighbours"}},
			{q: "uberlasst alteren", want: []string{"seat-for-the-elderly"}},
			{q: "Überlässt", want: []string{"seat-for-the-elderly"}},
			// Spanish: ñ and the accents.
			{q: "nino", want: []string{"child-says-sorry"}},
			{q: "niño perdon", want: []string{"child-says-sorry"}},
			{q: "autobus", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			{q: "AUTOBÚS", want: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			// Every word must match; the last one as a prefix.
			{q: "bus driver", want: []string{"bus-driver-friend"}, not: []string{"seat-for-the-elderly"}},
			{q: "bus dri", want: []string{"bus-driver-friend"}, not: []string{"seat-for-the-elderly"}},
			{q: "bus zzzz", not: []string{"seat-for-the-elderly", "bus-driver-friend"}},
			// Words may come from different languages of one flag.
			{q: "otobus driver", want: []string{"bus-driver-friend"}},
			{q: "  yasli  ", want: []string{"seat-for-the-elderly"}},
			{q: "!!", not: []string{"seat-for-the-elderly"}},
		}
		for _, tc := range tests {
			got, _ := search(tc.q)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q: %v lacks %s", tc.q, got, w)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%q: %v has %s", tc.q, got, n)
				}
			}
		}
		// Approved flags only.
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "PENDING", "f23")
		e.reload()
		if got, _ := search("otobus"); slices.Contains(got, "bus-driver-friend") {
			t.Errorf("a pending flag is found: %v", got)
		}
		// A whole word ranks above a longer word it starts.
		got, r := search("bus")
		if len(got) == 0 {
			t.Fatal("bus finds nothing")
		}
		for _, it := range data(t, r) {
			if it["slug"] == "seat-for-the-elderly" && it["rank"].(float64) <= 0 {
				t.Errorf("rank %v", it["rank"])
			}
		}
		// limit and its clamp.
		r = e.get("/api/public/search?q=the&limit=1")
		if len(data(t, r)) != 1 || r.json["limit"] != 1.0 {
			t.Errorf("limit=1: %s", r.body)
		}
		if r := e.get("/api/public/search?q=the&limit=500"); r.json["limit"] != 50.0 {
			t.Errorf("limit=500 must clamp to 50: %v", r.json["limit"])
		}
		if r := e.get("/api/public/search?q=" + url.QueryEscape(strings.Repeat("ab ", 66)+"ab")); r.status != 200 {
			t.Errorf("200 characters: %d", r.status)
		}
	})
}

func total(it map[string]any) float64 { return it["votes"].(map[string]any)["total"].(float64) }
