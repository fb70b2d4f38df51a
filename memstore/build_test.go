package memstore

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// world is the database a property test changes: every flag, approved or
// not, by id, and what the loader would read of the last tick.
type world struct {
	rng     *rand.Rand
	flags   map[string]FlagInput
	changed []FlagInput
	full    bool     // a row was deleted: the loader reads everything again
	regions []string // every region a flag has had
	slugs   []string // every slug a flag has had
	now     time.Time
}

var propWords = []string{"bus", "late", "yaşlı", "größe", "niño", "kind", "money", "calls", "günü", "straße"}

func (w *world) text() string {
	return propWords[w.rng.IntN(len(propWords))] + " " + propWords[w.rng.IntN(len(propWords))]
}

// region is mostly one already seen, sometimes a new one.
func (w *world) region() string {
	if w.rng.IntN(8) == 0 || len(w.regions) == 0 {
		r := fmt.Sprintf("R%d", len(w.regions))
		if len(w.regions) == 0 {
			r = ""
		}
		w.regions = append(w.regions, r)
		return r
	}
	return w.regions[w.rng.IntN(len(w.regions))]
}

func (w *world) slug() string {
	s := fmt.Sprintf("slug-%d", len(w.slugs))
	w.slugs = append(w.slugs, s)
	return s
}

func (w *world) insert() {
	in := FlagInput{ID: fmt.Sprintf("flg_%04d", w.rng.IntN(10000)), Slug: w.slug(), Approved: w.rng.IntN(5) > 0,
		Category: Categories[w.rng.IntN(NumCategories)], Region: w.region(),
		CreatedAt: w.now.Add(-time.Duration(w.rng.IntN(72)) * time.Hour), Red: w.rng.Int64N(9), Green: w.rng.Int64N(9)}
	if _, taken := w.flags[in.ID]; taken {
		return
	}
	for l := range in.Text {
		in.Text[l] = w.text()
	}
	if w.rng.IntN(2) == 0 {
		d := "about " + w.text()
		in.Description[EN] = &d
	}
	in.Contexts = []string{Contexts[w.rng.IntN(len(Contexts))]}
	w.put(in)
}

func (w *world) put(in FlagInput) {
	in.UpdatedAt = w.now
	w.flags[in.ID] = in
	w.changed = append(w.changed, in)
}

// change applies one random change to the world.
func (w *world) change() {
	ids := slices.Sorted(maps.Keys(w.flags))
	if len(ids) == 0 || w.rng.IntN(6) == 0 {
		w.insert()
		return
	}
	in := w.flags[ids[w.rng.IntN(len(ids))]]
	switch w.rng.IntN(12) {
	case 0:
		in.Approved = !in.Approved // approved, or rejected
	case 1:
		in.Slug = w.slug()
	case 2: // two flags swap their slugs in one tick
		other := w.flags[ids[w.rng.IntN(len(ids))]]
		if other.ID != in.ID {
			in.Slug, other.Slug = other.Slug, in.Slug
			w.put(other)
		}
	case 3:
		in.Region = w.region()
	case 4:
		in.Category = Categories[w.rng.IntN(NumCategories)]
	case 5:
		in.Text[w.rng.IntN(int(NumLangs))] = w.text()
	case 6:
		d := "now " + w.text()
		in.Description[w.rng.IntN(int(NumLangs))] = &d
		in.Contexts = append(slices.Clone(in.Contexts), Contexts[w.rng.IntN(len(Contexts))])
	case 7:
		delete(w.flags, in.ID)
		w.full = true
		return
	default: // votes, the usual change; ties are common
		in.Red, in.Green = w.rng.Int64N(9), w.rng.Int64N(9)
	}
	w.put(in)
	if w.rng.IntN(5) == 0 {
		w.changed = append(w.changed, in) // read twice in one tick
	}
}

// approved is what a full load reads: every approved flag.
func (w *world) approved() []FlagInput {
	var out []FlagInput
	for _, in := range w.flags {
		if in.Approved {
			out = append(out, in)
		}
	}
	return out
}

// Built tick by tick, a snapshot is the one a build from scratch makes of
// the same data, whatever the ticks inserted, approved, rejected, voted,
// renamed, moved to another (or a new) region, edited or deleted.
func TestTicksEqualBuildFromScratch(t *testing.T) {
	agg := Aggregates{Users: 5, VotesLast24h: 1, Last7d: 2, Last30d: 3}
	defer func(n, d int) { holesFree, deltaFloor, waitFolds = n, d, false }(holesFree, deltaFloor)
	renumbered := 0
	for seed := range uint64(12) {
		holesFree = pageLen
		if seed%2 == 1 {
			holesFree = 1 // renumber every few ticks
		}
		// Seeds 2, 5, 8, 11 fold the search index's delta every few
		// ticks, in the background, taken in when built; seeds 3 and 9
		// wait for each folding, so that it is taken in by the next tick.
		deltaFloor, waitFolds = 256, false
		if seed%3 == 2 || seed%6 == 3 {
			deltaFloor, waitFolds = 4, seed%6 == 3
		}
		w := &world{rng: rand.New(rand.NewPCG(seed, 99)), flags: map[string]FlagInput{},
			now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
		var snap *Snapshot
		for tick := range 40 {
			w.now = w.now.Add(time.Minute)
			w.changed, w.full = nil, tick%17 == 16
			for range w.rng.IntN(10) { // sometimes none
				w.change()
			}
			ch := Change{Full: w.full, Flags: w.changed, Aggregates: agg, LoadedAt: w.now}
			if w.full {
				ch.Flags = w.approved()
			}
			next, err := Build(snap, ch)
			if err != nil {
				t.Fatalf("seed %d tick %d: %v", seed, tick, err)
			}
			scratch, err := Build(nil, Change{Full: true, Flags: w.approved(), Aggregates: agg, LoadedAt: w.now})
			if err != nil {
				t.Fatal(err)
			}
			if next.Gen != uint64(tick+1) {
				t.Fatalf("generation %d after %d builds", next.Gen, tick+1)
			}
			sameSnapshots(t, fmt.Sprintf("seed %d tick %d", seed, tick), next, scratch, w)
			checkOracle(t, fmt.Sprintf("seed %d tick %d", seed, tick), next, w, agg)
			if snap != nil {
				sameChanges(t, fmt.Sprintf("seed %d tick %d", seed, tick), snap, next)
			}
			sameFresh(t, fmt.Sprintf("seed %d tick %d", seed, tick), snap, next)
			if snap != nil && next.Slots() < snap.Slots() {
				renumbered++
			}
			snap = next
		}
	}
	if n := placeFaults.Load(); n != 0 {
		t.Fatalf("%d builds could not re-place a flag in its orders", n)
	}
	if renumbered == 0 {
		t.Fatal("no build renumbered the slots")
	}
	if foldsTaken.Load() == 0 {
		t.Fatal("no build took in a new base of the search index")
	}
}

// sameFresh checks that next.Fresh yields, in slot order, exactly the
// flags of next that prev (nil for none) does not hold.
func sameFresh(t *testing.T, at string, prev, next *Snapshot) {
	t.Helper()
	held := map[*Flag]bool{}
	if prev != nil {
		for f := range prev.Flags() {
			held[f] = true
		}
	}
	var want []*Flag
	for f := range next.Flags() {
		if !held[f] {
			want = append(want, f)
		}
	}
	if got := slices.Collect(next.Fresh()); !slices.Equal(got, want) {
		t.Fatalf("%s: Fresh yields %d flags, want %d", at, len(got), len(want))
	}
}

// sameSnapshots compares everything a reader can ask two snapshots.
func sameSnapshots(t *testing.T, at string, got, want *Snapshot, w *world) {
	t.Helper()
	if got.Len() != want.Len() || got.Len() != len(w.approved()) {
		t.Fatalf("%s: %d flags, want %d (%d approved)", at, got.Len(), want.Len(), len(w.approved()))
	}
	gf, wf := byIDOrder(got), byIDOrder(want)
	for i := range gf {
		if g, x := gf[i], wf[i]; !reflect.DeepEqual(flagData(g), flagData(x)) {
			t.Fatalf("%s: flag %d is %+v, want %+v", at, i, flagData(g), flagData(x))
		}
	}
	if holes := got.Slots() - got.Len(); holes > got.Len()/slotSlack+holesFree {
		t.Fatalf("%s: %d holes among %d flags", at, holes, got.Len())
	}
	for _, slug := range w.slugs {
		g, gi, gok := got.FlagBySlug(slug)
		x, _, xok := want.FlagBySlug(slug)
		if gok != xok || gok && (g.ID() != x.ID() || got.At(gi) != g || slotByID(got, g) != gi) {
			t.Fatalf("%s: FlagBySlug(%q) = %v %v, want %v %v", at, slug, g, gok, x, xok)
		}
	}
	regions := append(slices.Clone(w.regions), "never")
	for srt := range NumSorts {
		for _, desc := range []bool{false, true} {
			for c := -1; c < NumCategories; c++ {
				for d := -1; d < int(NumDominants); d++ {
					for r := -1; r < len(regions); r++ {
						q := ListQuery{Sort: srt, Desc: desc, Limit: 1 << 20, HasCategory: c >= 0, HasDominant: d >= 0, HasRegion: r >= 0}
						q.Category, q.Dominant = Category(max(c, 0)), Dominant(max(d, 0))
						if r >= 0 {
							q.Region = regions[r]
						}
						sameList(t, at, got, want, q)
						q.Offset, q.Limit = 2, 3
						sameList(t, at, got, want, q)
					}
				}
			}
		}
	}
	if !reflect.DeepEqual(got.Stats(), want.Stats()) {
		t.Fatalf("%s: stats\n got %+v\nwant %+v", at, got.Stats(), want.Stats())
	}
	if !reflect.DeepEqual(got.Categories(), want.Categories()) || !reflect.DeepEqual(got.Regions(), want.Regions()) {
		t.Fatalf("%s: categories or regions differ:\n%v %v\n%v %v", at, got.Categories(), got.Regions(), want.Categories(), want.Regions())
	}
	sameCosts(t, at, got, want)
	// Exact, prefix, stem ("call", "kinder") and typo ("monye", "strase",
	// "calsl") matches, over the base and the delta of the index.
	for _, q := range append(propWords, "gro", "yas", "n", "kind mon", "calls bus late", "call", "kinder", "monye", "strase", "calsl", "lat monye") {
		sameSearch(t, at, q, got, want)
	}
}

// sameList checks a page and its total against the other snapshot's and
// against the filters applied by hand to the whole order.
func sameList(t *testing.T, at string, got, want *Snapshot, q ListQuery) {
	t.Helper()
	gp, gn := got.List(q)
	wp, wn := want.List(q)
	var naive []string
	all, _ := want.List(ListQuery{Sort: q.Sort, Desc: q.Desc, Limit: 1 << 20})
	for k := range all.Len() {
		f := all.At(k)
		if (!q.HasCategory || f.Category == q.Category) && (!q.HasDominant || f.Dominant == q.Dominant) &&
			(!q.HasRegion || f.Region() == q.Region) {
			naive = append(naive, f.ID())
		}
	}
	total := len(naive)
	naive = naive[min(q.Offset, len(naive)):]
	naive = naive[:min(q.Limit, len(naive))]
	if g, x := pageIDs(got, gp), pageIDs(want, wp); gn != wn || wn != total || !slices.Equal(g, x) || !slices.Equal(x, naive) {
		t.Fatalf("%s: List(%+v) = %d %v, from scratch %d %v, by hand %d %v", at, q, gn, g, wn, x, total, naive)
	}
}

func pageIDs(s *Snapshot, p Page) []string {
	out := make([]string, p.Len())
	for k := range out {
		f := p.At(k)
		if s.At(p.Pos(k)) != f {
			panic("a page's position is not its flag's")
		}
		out[k] = f.ID()
	}
	return out
}

// flagData is what a reader sees of a flag.
func flagData(f *Flag) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %q %q %v %d %d %s %s", f.ID(), f.Slug(), f.Category.Enum(), f.Region(), f.Texts(), f.Contexts(),
		f.Red, f.Green, f.Dominant, f.CreatedAt())
	for l := range NumLangs {
		if d, ok := f.Description(l); !ok {
			b.WriteString(" -")
		} else {
			fmt.Fprintf(&b, " %q", d)
		}
	}
	return b.String()
}

// Two flags with one slug are refused, in a full build and in a tick, and
// a refused tick leaves the previous snapshot whole: the next good tick
// builds on it.
func TestDuplicateSlugRefused(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	mk := func(id, slug string) FlagInput {
		return FlagInput{ID: id, Slug: slug, Approved: true, Category: "SOCIAL", Text: [NumLangs]string{"a", "b", "c", "d"},
			CreatedAt: now, UpdatedAt: now, Red: 1}
	}
	if _, err := Build(nil, Change{Full: true, Flags: []FlagInput{mk("a", "x"), mk("b", "x")}}); err == nil ||
		!strings.Contains(err.Error(), `share the slug "x"`) {
		t.Fatalf("full build with a duplicate slug: %v", err)
	}
	snap, err := Build(nil, Change{Full: true, Flags: []FlagInput{mk("a", "x"), mk("b", "y")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range [][]FlagInput{{mk("b", "x")}, {mk("c", "y")}, {mk("b", "z"), mk("c", "z")}} {
		if _, err := Build(snap, Change{Flags: ch}); err == nil || !strings.Contains(err.Error(), "share the slug") {
			t.Fatalf("tick %v with a duplicate slug: %v", ch, err)
		}
	}
	if f, _, ok := snap.FlagBySlug("x"); !ok || f.ID() != "a" || snap.Len() != 2 {
		t.Fatalf("the previous snapshot changed: %v %v, %d flags", f, ok, snap.Len())
	}
	// a swap of slugs in one tick is no duplicate
	next, err := Build(snap, Change{Flags: []FlagInput{mk("a", "y"), mk("b", "x")}})
	if err != nil {
		t.Fatal(err)
	}
	if f, _, _ := next.FlagBySlug("x"); f.ID() != "b" {
		t.Fatalf("after the swap x is %s", f.ID())
	}
	if f, _, _ := snap.FlagBySlug("x"); f.ID() != "a" {
		t.Fatalf("the swap changed the previous snapshot: x is %s", f.ID())
	}
}

// A tick that brings new regions leaves the previous snapshot, which
// requests may still be reading, as it was.
func TestTickLeavesPreviousSnapshot(t *testing.T) {
	mk := func(id, region string) FlagInput {
		return FlagInput{ID: id, Slug: id, Approved: true, Category: "SOCIAL", Region: region,
			Text: [NumLangs]string{"a", "b", "c", "d"}, Red: 1}
	}
	prev, err := Build(nil, Change{Full: true, Flags: []FlagInput{mk("a", "DE")}})
	if err != nil {
		t.Fatal(err)
	}
	regions := prev.Regions()
	next, err := Build(prev, Change{Flags: []FlagInput{mk("b", "FR"), mk("c", "IT")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"FR", "IT"} {
		for _, q := range []ListQuery{{HasRegion: true, Region: r, Limit: 10},
			{HasRegion: true, Region: r, HasCategory: true, Category: 7, Limit: 10}} {
			if p, n := prev.List(q); n != 0 || p.Len() != 0 {
				t.Errorf("the previous snapshot lists %d flags of %s", n, r)
			}
			if p, n := next.List(q); n != 1 || p.Len() != 1 {
				t.Errorf("the new snapshot lists %d flags of %s", n, r)
			}
		}
	}
	if !slices.Equal(prev.Regions(), regions) {
		t.Errorf("the previous snapshot's regions became %v", prev.Regions())
	}
}

// A build of arenaMin flags or more carves them from arenas: their
// strings, descriptions included, cost no allocation each. A smaller one
// (a tick) allocates each flag's strings on its own, so that a flag it
// replaces later keeps no neighbour alive.
func TestBuildCarvesFromArena(t *testing.T) {
	flags := func(n int, strs bool) []FlagInput {
		out := make([]FlagInput, n)
		for i := range out {
			out[i] = FlagInput{ID: fmt.Sprintf("flg_%05d", i), Slug: fmt.Sprintf("s%05d", i), Approved: true,
				Category: "SOCIAL", Text: [NumLangs]string{"a b", "c d", "e f", "g h"}, Red: int64(i % 7)}
			if strs { // four descriptions and a list of contexts more per flag
				for l := range out[i].Description {
					d := fmt.Sprint("about ", i)
					out[i].Description[l] = &d
				}
				out[i].Contexts = []string{"PEN_PAL", "TEAM", "CLUB", "CLASS"}
			}
		}
		return out
	}
	perFlag := func(n int, strs bool) float64 {
		in := flags(n, strs)
		return testing.AllocsPerRun(1, func() { Build(nil, Change{Full: true, Flags: in}) }) / float64(n)
	}
	if d := perFlag(arenaMin, true) - perFlag(arenaMin, false); d > 0.1 {
		t.Errorf("a build of %d flags: %.2f allocations per flag for its descriptions and contexts, want none", arenaMin, d)
	}
	// One more: the key of the shared list of contexts (contextList).
	if d := perFlag(arenaMin-1, true) - perFlag(arenaMin-1, false); d > 1.1 {
		t.Errorf("a build of %d flags: %.2f allocations per flag for its descriptions and contexts, want one", arenaMin-1, d)
	}
}

// A flag's strings come back as they went in: empty ones, a description
// that is there but empty against one that is not there, multi-byte
// texts, and a rebuild that changes one string of a flag and keeps the
// rest.
func TestFlagStrings(t *testing.T) {
	empty, long := "", strings.Repeat("ğüş \"x\" ", 5000)
	in := FlagInput{ID: "flg_1", Slug: "s-1", Approved: true, Category: "SOCIAL", Region: "TR",
		Text:        [NumLangs]string{"İyi", "good", "", long},
		Description: [NumLangs]*string{&empty, nil, &long, nil}, Red: 1}
	world := in
	world.ID, world.Slug, world.Region, world.Description = "flg_2", "s-2", "", [NumLangs]*string{}
	check := func(s *Snapshot, in FlagInput) {
		t.Helper()
		f, _, ok := s.FlagBySlug(in.Slug)
		if !ok {
			t.Fatalf("%s not found", in.Slug)
		}
		if f.ID() != in.ID || f.Slug() != in.Slug || f.Region() != in.Region || f.Texts() != in.Text {
			t.Errorf("%s: %q %q %q %q", in.ID, f.ID(), f.Slug(), f.Region(), f.Texts())
		}
		for l := range NumLangs {
			d, ok := f.Description(l)
			if want := in.Description[l]; ok != (want != nil) || ok && d != *want || !ok && d != "" {
				t.Errorf("%s: description %d is %q, %v", in.ID, l, d, ok)
			}
		}
		if cuts := f.Cuts(); cuts != [NumCuts]string{in.ID, in.Slug, in.Text[0], in.Text[1], in.Text[2], in.Text[3]} {
			t.Errorf("%s: cuts %q", in.ID, cuts)
		}
	}
	s, err := Build(nil, Change{Full: true, Flags: []FlagInput{in, world}})
	if err != nil {
		t.Fatal(err)
	}
	check(s, in)
	check(s, world)
	in.Text[EN], in.Description[TR] = "better", nil
	world.Region = "DE"
	s, err = Build(s, Change{Flags: []FlagInput{in, world}})
	if err != nil {
		t.Fatal(err)
	}
	check(s, in)
	check(s, world)
}

// slotByID is the slot s's lookup by id gives f's id.
func slotByID(s *Snapshot, f *Flag) int {
	i, _ := s.byID.get(f.ID(), &s.flags)
	return int(i)
}
