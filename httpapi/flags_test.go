package httpapi_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// item is the part of a list item the sort order depends on.
type item struct {
	id                string
	red, green, total int64
	created           time.Time
}

func toItem(t testing.TB, m map[string]any) item {
	t.Helper()
	v := m["votes"].(map[string]any)
	created, err := time.Parse(time.RFC3339Nano, m["createdAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	it := item{id: m["id"].(string), red: int64(v["red"].(float64)), green: int64(v["green"].(float64)), created: created}
	it.total = it.red + it.green
	if int64(v["total"].(float64)) != it.total || int64(v["net"].(float64)) != it.red-it.green {
		t.Errorf("%s: votes %v do not add up", it.id, v)
	}
	return it
}

func controversy(it item) float64 {
	if it.red == 0 || it.green == 0 {
		return 1
	}
	lo, hi := float64(min(it.red, it.green)), float64(max(it.red, it.green))
	return math.Pow(float64(it.total), lo/hi)
}

// wantOrder is the contract's order: the primary key in its direction,
// then total desc, then id asc.
func wantOrder(sort string, desc bool) func(a, b item) int {
	return func(a, b item) int {
		var c int
		switch sort {
		case "net":
			c = cmp.Compare(a.red-a.green, b.red-b.green)
		case "total":
			c = cmp.Compare(a.total, b.total)
		case "newest":
			c = a.created.Compare(b.created)
		case "controversial":
			c = cmp.Compare(controversy(a), controversy(b))
		}
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		if c = cmp.Compare(b.total, a.total); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
}

func TestFlags(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		t.Run("default", func(t *testing.T) {
			r := e.get("/api/public/flags")
			mustStatus(t, r, 200, "")
			if r.json["sort"] != "net" || r.json["order"] != "asc" || r.json["limit"] != 20.0 || r.json["offset"] != 0.0 {
				t.Errorf("envelope %v", r.json)
			}
			items := data(t, r)
			if r.json["count"] != float64(len(items)) || r.json["total"] != float64(approved()) || len(items) != approved() {
				t.Errorf("count %v total %v len %d, want %d approved", r.json["count"], r.json["total"], len(items), approved())
			}
			if items[0]["slug"] != "very-green" {
				t.Errorf("net asc must open with the greenest flag, got %v", items[0]["slug"])
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, it := range items {
				if it["slug"] == "pending-one" || it["slug"] == "rejected-one" {
					t.Errorf("a flag that is not approved is listed: %v", it["slug"])
				}
			}
		})

		// Paging through every item, 3 at a time, gives exactly the full
		// list in the contract's order, for every sort and direction.
		for _, sort := range []string{"net", "total", "controversial", "newest"} {
			for _, order := range []string{"", "asc", "desc"} {
				t.Run("paging "+sort+" "+order, func(t *testing.T) {
					desc := sort != "net"
					q := "sort=" + sort
					if order != "" {
						desc = order == "desc"
						q += "&order=" + order
					}
					full := data(t, e.get("/api/public/flags?limit=100&"+q))
					var paged []map[string]any
					for off := 0; off < len(full)+3; off += 3 {
						r := e.get(fmt.Sprintf("/api/public/flags?%s&limit=3&offset=%d", q, off))
						mustStatus(t, r, 200, "")
						if r.json["total"] != float64(len(full)) {
							t.Fatalf("total %v, want %d", r.json["total"], len(full))
						}
						paged = append(paged, data(t, r)...)
					}
					if got, want := slugs(paged), slugs(full); !slices.Equal(got, want) {
						t.Fatalf("paged\n%v\nwant\n%v", got, want)
					}
					items := make([]item, len(full))
					for i, m := range full {
						items[i] = toItem(t, m)
					}
					want := slices.Clone(items)
					slices.SortFunc(want, wantOrder(sort, desc))
					for i := range want {
						if items[i].id != want[i].id {
							t.Fatalf("position %d: %s, want %s (sort %s desc %v)", i, items[i].id, want[i].id, sort, desc)
						}
					}
				})
			}
		}

		t.Run("tie-break", func(t *testing.T) {
			// tie-a, tie-b, tie-c share every key: id asc in both directions.
			for _, order := range []string{"asc", "desc"} {
				items := data(t, e.get("/api/public/flags?category=LIFESTYLE&sort=net&order="+order))
				if got := slugs(items); !slices.Equal(got, []string{"tie-a", "tie-b", "tie-c"}) {
					t.Errorf("order %s: %v", order, got)
				}
			}
			// net 0: total desc first (tie-* total 20 before net-zero-small total 10).
			items := data(t, e.get("/api/public/flags?sort=net&limit=100"))
			pos := map[string]int{}
			for i, s := range slugs(items) {
				pos[s] = i
			}
			if pos["tie-c"] > pos["net-zero-small"] {
				t.Errorf("net tie must break on total desc: %v", slugs(items))
			}
		})

		t.Run("offset past the end", func(t *testing.T) {
			r := e.get("/api/public/flags?offset=1000")
			mustStatus(t, r, 200, "")
			if len(data(t, r)) != 0 || r.json["count"] != 0.0 || r.json["total"] != float64(approved()) {
				t.Errorf("got %s", r.body)
			}
			r = e.get("/api/public/flags?offset=99999999999999999999999")
			mustStatus(t, r, 200, "")
		})

		t.Run("clamp", func(t *testing.T) {
			r := e.get("/api/public/flags?limit=1000")
			mustStatus(t, r, 200, "")
			if r.json["limit"] != 100.0 {
				t.Errorf("limit %v, want 100", r.json["limit"])
			}
			r = e.get("/api/public/flags?limit=100000000000000000000000")
			mustStatus(t, r, 200, "")
			if r.json["limit"] != 100.0 {
				t.Errorf("limit %v, want 100", r.json["limit"])
			}
			r = e.get("/api/public/flags?limit=1")
			if r.json["limit"] != 1.0 || len(data(t, r)) != 1 {
				t.Errorf("limit=1: %s", r.body)
			}
		})
	})
}

func TestDominant(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		want := map[string]string{
			"red-exactly-sixty": "red", "red-just-below-sixty": "yellow", "green-exactly-sixty": "green",
			"no-votes-yet": "yellow", "red-six-of-ten": "red", "red-sixty-of-hundred": "red",
			"green-sixty-of-hundred": "green", "tie-a": "yellow", "one-sided-red": "red",
		}
		for slug, dom := range want {
			r := e.get("/api/public/flag/" + slug)
			mustStatus(t, r, 200, "")
			if r.json["dominant"] != dom {
				t.Errorf("%s: dominant %v, want %s", slug, r.json["dominant"], dom)
			}
		}
		// The filter applies before paging: every page is full and total
		// counts all matches.
		counts := map[string]int{}
		for _, it := range data(t, e.get("/api/public/flags?limit=100")) {
			counts[it["dominant"].(string)]++
		}
		for _, dom := range []string{"red", "green", "yellow"} {
			r := e.get("/api/public/flags?limit=2&dominant=" + dom)
			mustStatus(t, r, 200, "")
			items := data(t, r)
			if r.json["total"] != float64(counts[dom]) || len(items) != min(2, counts[dom]) {
				t.Errorf("dominant=%s: total %v count %d, want total %d", dom, r.json["total"], len(items), counts[dom])
			}
			for _, it := range items {
				if it["dominant"] != dom {
					t.Errorf("dominant=%s lists %v", dom, it["dominant"])
				}
			}
		}
		st := e.get("/api/public/stats").json["flags"].(map[string]any)
		if st["redDominant"] != float64(counts["red"]) || st["greenDominant"] != float64(counts["green"]) ||
			st["mixed"] != float64(counts["yellow"]) || st["total"] != float64(approved()) {
			t.Errorf("stats flags %v, want red %d green %d mixed %d", st, counts["red"], counts["green"], counts["yellow"])
		}
	})
}

func TestFilters(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		count := func(q string) int {
			t.Helper()
			r := e.get("/api/public/flags?limit=100&" + q)
			mustStatus(t, r, 200, "")
			if int(r.json["total"].(float64)) != len(data(t, r)) {
				t.Errorf("%s: total %v but %d items", q, r.json["total"], len(data(t, r)))
			}
			return len(data(t, r))
		}
		tests := []struct {
			q    string
			want int
		}{
			{"category=CHARACTER", 2}, {"category=character", 2}, {"category=Character", 2},
			{"category=LIFESTYLE", 3}, {"region=TR", 4}, {"region=tr", 4}, {"region=world", 8},
			{"region=WORLD", 8}, {"region=FR", 0}, {"region=TR&category=CHARACTER", 2},
			{"region=TR&dominant=red", 2}, {"region=TR&category=CHARACTER&dominant=yellow", 1},
			{"category=SOCIAL&dominant=red", 2}, {"category=SOCIAL&region=world", 2},
		}
		for _, tc := range tests {
			if got := count(tc.q); got != tc.want {
				t.Errorf("%s: %d flags, want %d", tc.q, got, tc.want)
			}
		}
		for _, it := range data(t, e.get("/api/public/flags?region=world&limit=100")) {
			if it["region"] != nil {
				t.Errorf("region=world lists region %v", it["region"])
			}
		}
		// Combined filters page like single ones.
		all := slugs(data(t, e.get("/api/public/flags?region=TR&dominant=red&sort=total")))
		var paged []string
		for off := 0; off < 4; off++ {
			paged = append(paged, slugs(data(t, e.get(fmt.Sprintf("/api/public/flags?region=TR&dominant=red&sort=total&limit=1&offset=%d", off))))...)
		}
		if !slices.Equal(all, paged) {
			t.Errorf("paged %v, want %v", paged, all)
		}
	})
}
