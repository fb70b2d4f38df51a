package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCategoriesRegionsStats(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/categories")
		mustStatus(t, r, 200, "")
		cats := data(t, r)
		if len(cats) != 8 || r.json["count"] != 8.0 {
			t.Fatalf("categories %s", r.body)
		}
		sum := 0.0
		for i, c := range cats {
			if c["slug"] != strings.ToLower(c["enum"].(string)) {
				t.Errorf("slug %v enum %v", c["slug"], c["enum"])
			}
			if i > 0 && c["count"].(float64) > cats[i-1]["count"].(float64) {
				t.Errorf("categories not by count desc: %s", r.body)
			}
			sum += c["count"].(float64)
		}
		if sum != float64(approved()) {
			t.Errorf("category counts sum to %v, want %d", sum, approved())
		}

		r = e.get("/api/public/regions")
		mustStatus(t, r, 200, "")
		regs := data(t, r)
		if regs[0]["code"] != nil || regs[0]["label"] != "world" || regs[0]["count"] != 8.0 {
			t.Errorf("world first: %v", regs[0])
		}
		got := map[string]float64{}
		for _, rg := range regs[1:] {
			if rg["label"] != rg["code"] {
				t.Errorf("label %v for code %v", rg["label"], rg["code"])
			}
			got[rg["code"].(string)] = rg["count"].(float64)
		}
		if want := map[string]float64{"TR": 4, "DE": 2, "ES": 2, "US": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("regions %v, want %v", got, want)
		}

		r = e.get("/api/public/stats")
		mustStatus(t, r, 200, "")
		// topCategories is the head of /categories: the five largest, in
		// its order, with the same fields.
		top := r.json["topCategories"].([]any)
		if len(cats) < 5 {
			t.Fatalf("the fixtures have %d categories, want 5 or more", len(cats))
		}
		if fmt.Sprint(top) != fmt.Sprint(cats[:5]) {
			t.Errorf("topCategories %v, want the first five of /categories %v", top, cats[:5])
		}
		var votes float64
		for _, it := range data(t, e.get("/api/public/flags?limit=100")) {
			votes += it["votes"].(map[string]any)["total"].(float64)
		}
		if v := r.json["votes"].(map[string]any); v["total"] != votes {
			t.Errorf("votes.total %v, want %v", v["total"], votes)
		}
		gen, err := time.Parse(time.RFC3339Nano, r.json["generatedAt"].(string))
		if err != nil || time.Since(gen) > time.Minute {
			t.Errorf("generatedAt %v", r.json["generatedAt"])
		}
	})
}
