package httpapi_test

import (
	"encoding/json"
	"fmt"
	"time"
)

// fx is one fixture flag, written as a line of the import format.
type fx struct {
	id, slug, cat, region, status string
	red, green                    int64
	created                       time.Time
	text                          [4]string // tr, en, de, es; defaults from the slug
	desc                          [4]*string
	contexts                      []string
	snaps                         []snap
}

type snap struct {
	daysAgo    int
	red, green int64
}

var today = time.Now().UTC().Truncate(24 * time.Hour)

func (f fx) line() string {
	text := map[string]string{}
	desc := map[string]*string{}
	for i, l := range []string{"tr", "en", "de", "es"} {
		text[l] = f.text[i]
		if text[l] == "" {
			text[l] = l + " text of " + f.slug
		}
		desc[l] = f.desc[i]
	}
	m := map[string]any{"id": f.id, "slug": f.slug, "category": f.cat, "text": text,
		"votes": map[string]int64{"red": f.red, "green": f.green}, "description": desc,
		"createdAt": f.created.UTC().Format("2006-01-02T15:04:05.000Z")}
	if f.region != "" {
		m["region"] = f.region
	} else {
		m["region"] = nil
	}
	if f.status != "" {
		m["status"] = f.status
	}
	if f.contexts == nil {
		m["contexts"] = []string{"FRIEND"}
	} else {
		m["contexts"] = f.contexts
	}
	var ss []map[string]any
	for _, s := range f.snaps {
		at := today.AddDate(0, 0, -s.daysAgo).Format("2006-01-02T15:04:05.000Z")
		ss = append(ss, map[string]any{"at": at, "red": s.red, "green": s.green})
	}
	if ss != nil {
		m["snapshots"] = ss
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func ptr(s string) *string { return &s }

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixtures are the flags every API test serves: the 60 % boundaries, ties
// on every sort key, statuses, regions, and texts in all four languages
// with the letters search must fold.
var fixtures = []fx{
	{id: "f01", slug: "red-exactly-sixty", cat: "CHARACTER", region: "TR", red: 3, green: 2, created: base,
		snaps: []snap{{0, 3, 2}, {1, 2, 2}, {5, 1, 1}, {29, 1, 0}, {30, 1, 0}, {40, 1, 0}, {100, 0, 0}}},
	{id: "f02", slug: "red-just-below-sixty", cat: "CHARACTER", region: "TR", red: 599, green: 401, created: base.Add(time.Hour)},
	{id: "f03", slug: "green-exactly-sixty", cat: "BEHAVIORAL", region: "DE", red: 2, green: 3, created: base.Add(2 * time.Hour)},
	{id: "f04", slug: "no-votes-yet", cat: "SOCIAL", red: 0, green: 0, created: base.Add(3 * time.Hour)},
	{id: "f05", slug: "red-six-of-ten", cat: "SOCIAL", red: 6, green: 4, created: base.Add(3 * time.Hour)},
	{id: "f06", slug: "red-sixty-of-hundred", cat: "FINANCIAL", region: "ES", red: 60, green: 40, created: base.Add(4 * time.Hour)},
	{id: "f07", slug: "green-sixty-of-hundred", cat: "FINANCIAL", red: 40, green: 60, created: base.Add(5 * time.Hour)},
	{id: "f08", slug: "tie-a", cat: "LIFESTYLE", red: 10, green: 10, created: base.Add(6 * time.Hour)},
	{id: "f09", slug: "tie-b", cat: "LIFESTYLE", red: 10, green: 10, created: base.Add(6 * time.Hour)},
	{id: "f10", slug: "tie-c", cat: "LIFESTYLE", red: 10, green: 10, created: base.Add(6 * time.Hour)},
	{id: "f11", slug: "net-zero-small", cat: "COMMUNICATION", red: 5, green: 5, created: base.Add(7 * time.Hour)},
	{id: "f12", slug: "very-green", cat: "RELATIONSHIP", region: "US", red: 100, green: 194300, created: base.Add(8 * time.Hour)},
	{id: "f13", slug: "pending-one", cat: "CHARACTER", status: "PENDING", red: 50, green: 1, created: base},
	{id: "f14", slug: "rejected-one", cat: "CHARACTER", status: "REJECTED", red: 50, green: 1, created: base},
	{id: "f15", slug: "one-sided-red", cat: "CULTURAL", region: "TR", red: 1000, green: 0, created: base.Add(9 * time.Hour)},
	{id: "f20", slug: "seat-for-the-elderly", cat: "BEHAVIORAL", region: "TR", red: 3, green: 120, created: base.Add(10 * time.Hour),
		text: [4]string{"Yaşlılara otobüste yer verir", "Gives up their seat to the elderly on the bus",
			"Überlässt älteren Menschen im Bus den Platz", "Cede el asiento a los mayores en el autobús"},
		desc:     [4]*string{ptr("Küçük bir nezaket."), nil, ptr("Eine kleine Höflichkeit."), nil},
		contexts: []string{"FAMILY", "ONLINE"}},
	{id: "f21", slug: "never-greets-neighbours", cat: "SOCIAL", region: "DE", red: 80, green: 20, created: base.Add(11 * time.Hour),
		text: [4]string{"İstanbul'da komşularını hiç selamlamaz", "Never greets the neighbours on the street",
			"Grüßt die Nachbarn auf der Straße nie", "Nunca saluda a los vecinos en la calle"}},
	{id: "f22", slug: "child-says-sorry", cat: "RELATIONSHIP", region: "ES", red: 10, green: 70, created: base.Add(12 * time.Hour),
		text: [4]string{"Işıkları kapatmayı hiç unutmaz", "The child always says sorry first",
			"Das Kind entschuldigt sich immer zuerst", "El niño siempre pide perdón primero"}},
	{id: "f23", slug: "bus-driver-friend", cat: "CULTURAL", red: 30, green: 31, created: base.Add(13 * time.Hour),
		text: [4]string{"Otobüs şoförüyle arkadaş olur", "Becomes friends with the bus driver",
			"Freundet sich mit dem Busfahrer an", "Se hace amigo del conductor del autobús"}},
}

func fixtureLines() []string {
	out := make([]string, len(fixtures))
	for i, f := range fixtures {
		out[i] = f.line()
	}
	return out
}

// approved counts the fixtures the API serves.
func approved() int {
	n := 0
	for _, f := range fixtures {
		if f.status == "" || f.status == "APPROVED" {
			n++
		}
	}
	return n
}

func fixtureBySlug(slug string) fx {
	for _, f := range fixtures {
		if f.slug == slug {
			return f
		}
	}
	panic(fmt.Sprintf("no fixture %s", slug))
}
