package memstore

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestTrendSeries(t *testing.T) {
	b := NewTrendBuilder(100)
	b.Add([]byte("a"), 99, 1, 1) // older than the window: dropped
	b.Add([]byte("a"), 100, 5, 2)
	b.Add([]byte("a"), 101, 4, 9) // counts may go down (votes deleted)
	b.Add([]byte("a"), 150, 1<<40, 0)
	b.Add([]byte("b"), 120, 0, 0)
	tr := b.Done()
	if tr.Rows() != 4 {
		t.Fatalf("rows %d", tr.Rows())
	}
	want := []TrendPoint{{100, 5, 2}, {101, 4, 9}, {150, 1 << 40, 0}}
	if got := tr.Of("a", 0, 1000); !slices.Equal(got, want) {
		t.Fatalf("Of: %v", got)
	}
	if got := tr.Of("a", 101, 149); !slices.Equal(got, want[1:2]) {
		t.Fatalf("window: %v", got)
	}
	if got := tr.Of("none", 0, 1000); len(got) != 0 {
		t.Fatalf("unknown flag: %v", got)
	}
	// With: a new day, a replaced day, a new flag; the old ones kept.
	n := tr.With([]TrendRow{{"a", 151, 7, 7}, {"a", 100, 6, 2}, {"c", 140, 1, 2}}, 100)
	if got := n.Of("a", 0, 1000); !slices.Equal(got, []TrendPoint{{100, 6, 2}, {101, 4, 9}, {150, 1 << 40, 0}, {151, 7, 7}}) {
		t.Fatalf("after With: %v", got)
	}
	if got := n.Of("b", 0, 1000); !slices.Equal(got, []TrendPoint{{120, 0, 0}}) || n.Rows() != 6 {
		t.Fatalf("untouched series %v, rows %d", got, n.Rows())
	}
	if tr.Of("a", 0, 1000)[0].Red != 5 {
		t.Fatal("With changed the old Trends")
	}
	if n.Version() == tr.Version() || n.Version() == 0 || tr.Version() == 0 {
		t.Fatalf("a history and the one With made of it: versions %d and %d", tr.Version(), n.Version())
	}
	// A flag whose rows come twice, apart: the last run is held.
	b = NewTrendBuilder(100)
	for _, id := range []string{"z", "a", "z"} {
		b.Add([]byte(id), 110+int32(len(id)), int64(len(b.t.keyEnd)), 0)
	}
	one := len(encode([]TrendPoint{{111, 1, 0}}))
	if d := b.Done(); !slices.Equal(d.Of("z", 0, 1000), []TrendPoint{{111, 1, 0}}) || d.Rows() != 2 || d.len() != 2 || d.Bytes() != 2*one {
		t.Fatalf("a flag twice: %v, %d rows, %d flags, %d bytes", d.Of("z", 0, 1000), d.Rows(), d.len(), d.Bytes())
	}
	// Update shares everything when nothing is new.
	if u := n.Update([]TrendRow{{"a", 151, 7, 7}}, 100); u != n {
		t.Fatal("Update without news made a new Trends")
	}
	// Series far past the window are trimmed.
	far := n.Update(nil, 150) // stale before 120: "a" starts at 100
	if got := far.Of("a", 0, 1000); !slices.Equal(got, []TrendPoint{{150, 1 << 40, 0}, {151, 7, 7}}) {
		t.Fatalf("trimmed: %v", got)
	}
}

// TestIncrementalOrders builds snapshots tick after tick with random vote
// changes, additions and removals, and checks every merged order against
// a full sort.
func TestIncrementalOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(i int) FlagInput {
		red, green := rng.Int64N(50), rng.Int64N(50)
		return FlagInput{ID: fmt.Sprintf("f%04d", i), Slug: fmt.Sprintf("s%04d", i), Approved: true,
			Category: Categories[rng.IntN(NumCategories)], Text: [NumLangs]string{"a", "b", "c", "d"},
			CreatedAt: time.Unix(rng.Int64N(1000), 0), Red: red, Green: green}
	}
	var all []FlagInput
	for i := 0; i < 400; i++ {
		all = append(all, mk(i))
	}
	snap, err := Build(nil, Change{Full: true, Flags: all})
	if err != nil {
		t.Fatal(err)
	}
	next := 400
	for tick := 0; tick < 30; tick++ {
		var ch []FlagInput
		for k := 0; k < 1+rng.IntN(20); k++ {
			f := all[rng.IntN(len(all))]
			switch rng.IntN(6) {
			case 0:
				f.Approved = false // removed
			case 1:
				f = mk(next) // added
				next++
				all = append(all, f)
			default:
				f.Red, f.Green = f.Red+rng.Int64N(5), f.Green+rng.Int64N(5)
			}
			f.UpdatedAt = time.Unix(int64(tick+1), 0)
			ch = append(ch, f)
		}
		if snap, err = Build(snap, Change{Flags: ch}); err != nil {
			t.Fatal(err)
		}
		for srt := Sort(0); srt < NumSorts; srt++ {
			for dir := 0; dir < 2; dir++ {
				var want []int32
				for i := range snap.Slots() {
					if snap.At(i) != nil {
						want = append(want, int32(i))
					}
				}
				slices.SortFunc(want, func(i, j int32) int { return snap.compare(srt, dir == 1, i, j) })
				if !slices.Equal(snap.orders[listAll][srt][dir].flat(), want) {
					t.Fatalf("tick %d sort %s dir %d: merged order differs from a full sort", tick, srt, dir)
				}
			}
		}
	}
}

// Days are counted in UTC from the Unix epoch; a point's time is the start
// of its day.
func TestTrendDays(t *testing.T) {
	at := time.Date(2026, 11, 23, 23, 59, 59, 0, time.FixedZone("", -3*3600)) // 02:59:59 UTC on the 24th
	if d := DayOf(at); d != 20781 {
		t.Errorf("DayOf(%v) = %d, want 20781", at, d)
	}
	if got := (TrendPoint{Day: 20781}).At(); !got.Equal(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("day 20781 starts at %v", got)
	}
	if DayOf(time.Unix(0, 0)) != 0 || DayOf(time.Unix(86399, 0)) != 0 || DayOf(time.Unix(86400, 0)) != 1 {
		t.Error("the first days of the epoch")
	}
}

// A series is trimmed when it starts more than trimSlack days before the
// oldest day kept, not when it starts exactly trimSlack days before.
func TestTrendTrimBoundary(t *testing.T) {
	const oldest = 200
	b := NewTrendBuilder(0)
	b.Add([]byte("edge"), oldest-trimSlack, 1, 1)
	b.Add([]byte("edge"), oldest, 2, 2)
	b.Add([]byte("past"), oldest-trimSlack-1, 1, 1)
	b.Add([]byte("past"), oldest, 2, 2)
	built := b.Done()
	if built.Update(nil, oldest-1) != built {
		t.Error("Update without rows made a new Trends while no series starts more than trimSlack days before the oldest")
	}
	n := built.With(nil, oldest)
	if got := n.Of("edge", 0, 1000); len(got) != 2 {
		t.Errorf("a series starting %d days before the oldest: %v, want both days", trimSlack, got)
	}
	if got := n.Of("past", 0, 1000); len(got) != 1 || got[0].Day != oldest {
		t.Errorf("a series starting %d days before the oldest: %v, want the oldest day only", trimSlack+1, got)
	}
	if n.Rows() != 3 {
		t.Errorf("%d rows, want 3", n.Rows())
	}
}

// trendModel is what Trends must answer: every flag's points by day.
type trendModel map[string]map[int32]TrendPoint

func (m trendModel) of(id string, from, to int32) []TrendPoint {
	var out []TrendPoint
	for d, p := range m[id] {
		if from <= d && d <= to {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b TrendPoint) int { return int(a.Day - b.Day) })
	return out
}

func (m trendModel) rows() int {
	n := 0
	for _, ps := range m {
		n += len(ps)
	}
	return n
}

// with is With's rule: the rows replace or add their days, and a series
// the rows touch, or one that starts more than trimSlack days before
// oldest, keeps only the days from oldest on.
func (m trendModel) with(rows []TrendRow, oldest int32) trendModel {
	n := trendModel{}
	touched := map[string]bool{}
	for _, r := range rows {
		touched[r.FlagID] = true
	}
	for id, ps := range m {
		n[id] = maps.Clone(ps)
		for d := range ps {
			touched[id] = touched[id] || d < oldest-trimSlack
		}
	}
	for _, r := range rows {
		if n[r.FlagID] == nil {
			n[r.FlagID] = map[int32]TrendPoint{}
		}
		n[r.FlagID][r.Day] = TrendPoint{Day: r.Day, Red: r.Red, Green: r.Green}
	}
	for id, ok := range touched {
		if !ok {
			continue
		}
		maps.DeleteFunc(n[id], func(d int32, _ TrendPoint) bool { return d < oldest })
		if len(n[id]) == 0 {
			delete(n, id)
		}
	}
	return n
}

// news are the rows that add a day or change one.
func (m trendModel) news(rows []TrendRow) []TrendRow {
	var out []TrendRow
	for _, r := range rows {
		if ps := m.of(r.FlagID, r.Day, r.Day); len(ps) != 1 || ps[0].Red != r.Red || ps[0].Green != r.Green {
			out = append(out, r)
		}
	}
	return out
}

// stale reports whether a series starts more than trimSlack days before
// oldest.
func (m trendModel) stale(oldest int32) bool {
	for _, ps := range m {
		for d := range ps {
			if d < oldest-trimSlack {
				return true
			}
		}
	}
	return false
}

// checkTrends compares tr with the model: rows, size, and random windows
// of every flag and of one unknown.
func checkTrends(t *testing.T, rng *rand.Rand, ids []string, at string, tr *Trends, m trendModel) {
	t.Helper()
	if tr.Rows() != m.rows() {
		t.Fatalf("%s: %d rows, want %d", at, tr.Rows(), m.rows())
	}
	if b := tr.Bytes(); b < tr.Rows() || b > 24*tr.Rows() {
		t.Fatalf("%s: %d bytes for %d rows", at, b, tr.Rows())
	}
	for _, id := range append(ids, "none") {
		for range 8 {
			from := int32(rng.IntN(260))
			to := from + int32(rng.IntN(120)) - 10
			got, want := tr.Of(id, from, to), m.of(id, from, to)
			if !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s: Of(%s, %d, %d) = %v, want %v", at, id, from, to, got, want)
			}
		}
	}
}

// Random histories, built then updated day after day, answer as the model
// does: every window of every flag, the number of rows, sharing when
// nothing is new.
func TestTrendsAgreeWithModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ids := []string{"flg_a", "flg_b", "flg_c", "flg_d", "flg_e"}
	point := func(day int32) TrendPoint {
		// counts go up and down, sometimes far (deleted votes, big flags)
		return TrendPoint{Day: day, Red: rng.Int64N(1<<uint(rng.IntN(42)+1)) - 3, Green: rng.Int64N(1 << uint(rng.IntN(42)+1))}
	}
	for seed := range 12 {
		oldest := int32(20 + rng.IntN(40))
		b, m := NewTrendBuilder(oldest), trendModel{}
		buf := make([]byte, 0, 8)
		built := slices.Clone(ids[:1+seed%len(ids)])
		rng.Shuffle(len(built), func(i, j int) { built[i], built[j] = built[j], built[i] }) // a database's collation orders them its own way
		for _, id := range built {
			buf = append(buf[:0], id...) // a reused buffer, as the loader passes
			day := int32(rng.IntN(80))
			for range rng.IntN(40) {
				p := point(day)
				b.Add(buf, p.Day, p.Red, p.Green)
				if day >= oldest && (len(m[id]) == 0 || m.of(id, day, 1<<30) == nil) {
					if m[id] == nil {
						m[id] = map[int32]TrendPoint{}
					}
					m[id][day] = p
				}
				day += int32(rng.IntN(4)) - 1 // sometimes repeated or back: ignored
			}
			buf[0] = 'X'
		}
		tr := b.Done()
		checkTrends(t, rng, ids, fmt.Sprintf("seed %d built", seed), tr, m)
		for day := range 100 {
			oldest++
			var rows []TrendRow
			for range rng.IntN(4) {
				id := ids[rng.IntN(len(ids))]
				p := point(oldest + int32(rng.IntN(100)) - 5)
				if ps := m.of(id, p.Day, p.Day); len(ps) == 1 && rng.IntN(2) == 0 {
					p = ps[0] // the same as held: no news
				}
				rows = append(rows, TrendRow{FlagID: id, Day: p.Day, Red: p.Red, Green: p.Green})
			}
			news := m.news(rows) // Update leaves out the rows it holds already
			var next *Trends
			if rng.IntN(3) == 0 {
				next, m = tr.With(rows, oldest), m.with(rows, oldest)
			} else {
				next = tr.Update(rows, oldest)
				if shared := next == tr; shared != (len(news) == 0 && !m.stale(oldest)) {
					t.Fatalf("seed %d day %d: Update shared %v with news %v, stale %v", seed, day, shared, news, m.stale(oldest))
				}
				m = m.with(news, oldest)
			}
			checkTrends(t, rng, ids, fmt.Sprintf("seed %d day %d", seed, day), next, m)
			tr = next
		}
	}
}

// A history built or merged holds its bytes with little spare: it is kept
// until the next day's, and the appends that made it leave up to as much
// again.
func TestTrendsHoldLittleSpare(t *testing.T) {
	b := NewTrendBuilder(0)
	for i := range 1000 {
		for day := range int32(30) {
			b.Add(fmt.Appendf(nil, "flg_%05d", i), day, int64(i)*int64(day), int64(day))
		}
	}
	tr := b.Done()
	for _, at := range []*Trends{tr, tr.With([]TrendRow{{"flg_new", 3, 1, 1}}, 0)} {
		for name, lc := range map[string][2]int{"keys": {len(at.keys), cap(at.keys)}, "data": {len(at.data), cap(at.data)},
			"keyEnd": {len(at.keyEnd), cap(at.keyEnd)}, "dataEnd": {len(at.dataEnd), cap(at.dataEnd)}, "order": {len(at.order), cap(at.order)}} {
			if lc[0] == 0 || lc[1] > lc[0]*17/16 {
				t.Errorf("%s: length %d, capacity %d", name, lc[0], lc[1])
			}
		}
	}
}

// A day after the day before with a few votes is one byte; every other
// point round-trips in the wide form.
func TestSeriesBytes(t *testing.T) {
	ps := []TrendPoint{{Day: 20000, Red: 3, Green: 1}}
	small := [][2]int64{{0, 0}, {15, 7}, {1, 1}, {0, 7}, {15, 0}}
	for _, d := range small {
		last := ps[len(ps)-1]
		ps = append(ps, TrendPoint{Day: last.Day + 1, Red: last.Red + d[0], Green: last.Green + d[1]})
	}
	s := encode(ps)
	if want := len(encode(ps[:1])) + len(small); len(s) != want || s.count() != len(ps) {
		t.Fatalf("%d small steps: %d bytes, want %d; count %d", len(small), len(s), want, s.count())
	}
	if got := s.decode(); !slices.Equal(got, ps) {
		t.Fatalf("decoded %v, want %v", got, ps)
	}
	if epoch := []TrendPoint{{0, 1, 1}, {1, 2, 2}}; !slices.Equal(encode(epoch).decode(), epoch) {
		t.Errorf("day 0 decoded as %v", encode(epoch).decode())
	}
	for _, step := range []TrendPoint{{1, 16, 0}, {1, 0, 8}, {1, -1, 0}, {1, 0, -1}, {2, 0, 0}, {300, 1 << 40, -(1 << 40)}, {1, 15, 8}} {
		last := ps[len(ps)-1]
		next := append(slices.Clone(ps), TrendPoint{Day: last.Day + step.Day, Red: last.Red + step.Red, Green: last.Green + step.Green})
		w := encode(next)
		if len(w) < len(s)+4 || w.count() != len(next) || w.firstDay() != 20000 || !slices.Equal(w.decode(), next) {
			t.Errorf("step %v: %d bytes after %d, count %d, first day %d, decoded %v", step, len(w), len(s), w.count(), w.firstDay(), w.decode())
		}
	}
}
