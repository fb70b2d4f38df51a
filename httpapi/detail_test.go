package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestFlagDetail(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/flag/seat-for-the-elderly")
		mustStatus(t, r, 200, "")
		f := fixtureBySlug("seat-for-the-elderly")
		if r.json["id"] != f.id || r.json["category"] != "BEHAVIORAL" || r.json["region"] != "TR" ||
			r.json["createdAt"] != f.created.Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("detail %s", r.body)
		}
		text := r.json["text"].(map[string]any)
		if text["tr"] != "Yaşlılara otobüste yer verir" || text["de"] != f.text[2] {
			t.Errorf("text %v", text)
		}
		desc := r.json["description"].(map[string]any)
		if desc["tr"] != "Küçük bir nezaket." || desc["en"] != nil || desc["es"] != nil {
			t.Errorf("description %v", desc)
		}
		if got := fmt.Sprint(r.json["contexts"]); got != "[FAMILY ONLINE]" {
			t.Errorf("contexts %s", got)
		}
		// The world region is null, not absent.
		if r := e.get("/api/public/flag/no-votes-yet"); !strings.Contains(string(r.body), `"region":null`) {
			t.Errorf("world region: %s", r.body)
		}
		for _, slug := range []string{"nope", "pending-one", "rejected-one", "RED-EXACTLY-SIXTY"} {
			mustStatus(t, e.get("/api/public/flag/"+slug), 404, "not_found")
			mustStatus(t, e.get("/api/public/flag/"+slug+"/trend"), 404, "not_found")
		}
	})
}

func TestTrend(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		r := e.get("/api/public/flag/red-exactly-sixty/trend")
		mustStatus(t, r, 200, "")
		if r.json["slug"] != "red-exactly-sixty" || r.json["days"] != 30.0 {
			t.Errorf("envelope %s", r.body)
		}
		snaps := r.json["snapshots"].([]any)
		// Fixture days ago: 0, 1, 5, 29 inside 30 days; 30 (the edge: at >=
		// today - 29 days), 40 and 100 outside.
		var ats []string
		for _, s := range snaps {
			m := s.(map[string]any)
			ats = append(ats, m["at"].(string))
			if m["total"].(float64) != m["red"].(float64)+m["green"].(float64) || m["net"].(float64) != m["red"].(float64)-m["green"].(float64) {
				t.Errorf("snapshot %v does not add up", m)
			}
		}
		want := []string{day(29), day(5), day(1), day(0)}
		if !slices.Equal(ats, want) || r.json["count"] != 4.0 {
			t.Errorf("at %v count %v, want %v", ats, r.json["count"], want)
		}
		cur := r.json["current"].(map[string]any)
		if cur["red"] != 3.0 || cur["green"] != 2.0 || cur["total"] != 5.0 || cur["net"] != 1.0 {
			t.Errorf("current %v", cur)
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=31"); r.json["count"] != 5.0 {
			t.Errorf("days=31: count %v, want 5 (the day 30 days ago is in)", r.json["count"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=90"); r.json["count"] != 6.0 {
			t.Errorf("days=90: count %v, want 6 (the 100-day-old one is out)", r.json["count"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=1000"); r.json["days"] != 90.0 {
			t.Errorf("days=1000 must clamp to 90: %v", r.json["days"])
		}
		if r := e.get("/api/public/flag/red-exactly-sixty/trend?days=1"); r.json["count"] != 1.0 {
			t.Errorf("days=1: %s", r.body)
		}
		r = e.get("/api/public/flag/tie-a/trend")
		mustStatus(t, r, 200, "")
		if r.json["count"] != 0.0 || !strings.Contains(string(r.body), `"snapshots":[]`) {
			t.Errorf("no snapshots: %s", r.body)
		}
	})
}

func day(ago int) string { return today.AddDate(0, 0, -ago).Format("2006-01-02T15:04:05.000Z") }
