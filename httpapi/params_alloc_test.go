package httpapi

import (
	"testing"

	"github.com/flagpole/flagpole/memstore"
)

// TestQueryParamsAllocateNothing: reading a query whose values need no
// decoding allocates nothing (a map of the parameters cost every /flags,
// /search and /trend request one), and still finds what it was given.
func TestQueryParamsAllocateNothing(t *testing.T) {
	var q memstore.ListQuery
	var days int
	n := testing.AllocsPerRun(200, func() {
		q, _ = listQuery("sort=net&order=asc&category=relationship&limit=7&offset=30&x=1")
		days, _ = trendDays("days=90")
	})
	if n != 0 {
		t.Errorf("%v allocations a run, want 0", n)
	}
	if q.Sort != memstore.SortNet || q.Desc || !q.HasCategory || q.Limit != 7 || q.Offset != 30 || days != 90 {
		t.Errorf("parsed %+v and days %d", q, days)
	}
	if _, err := trendDays("days=1&days=2"); err == nil {
		t.Error("days given twice: no error")
	}
	p, err := queryParams("lang=de&q=a%20b&lang2=x", searchNames)
	if v, ok := p.get("q"); err != nil || !ok || v != "a b" {
		t.Errorf("q: %q %v %v", v, ok, err)
	}
	if _, ok := p.get("limit"); ok {
		t.Error("limit: given, but the query has none")
	}
}

// TestQueryParamsNamesFit: every route's names fit the array, and a list
// that does not is refused loudly rather than cut short.
func TestQueryParamsNamesFit(t *testing.T) {
	for _, names := range [][]string{listNames, searchNames, trendNames, streamNames} {
		if len(names) > maxParams {
			t.Errorf("%v: more than %d names", names, maxParams)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("nine names: no panic")
		}
	}()
	queryParams("i=1", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"})
}
