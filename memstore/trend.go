package memstore

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// TrendDays is how many days of history the API serves per flag.
const TrendDays = 90

// trimSlack is how many days past the window a series may keep before it
// is trimmed, so that trimming touches few series each day.
const trimSlack = 30

// TrendPoint is one daily snapshot of a flag's votes; Day counts UTC days
// since the Unix epoch.
type TrendPoint struct {
	Day        int32
	Red, Green int64
}

// At is the start of the point's UTC day.
func (p TrendPoint) At() time.Time { return time.Unix(int64(p.Day)*86400, 0).UTC() }

// DayOf is the UTC day number of t.
func DayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

// TrendRow is one row of flag_snapshots as the loader reads it.
type TrendRow struct {
	FlagID string
	Day    int32
	Red    int64
	Green  int64
}

// series is one flag's points, ascending by day, each as its difference
// from the point before (the first from day 0, no votes). A point that
// follows the day before with 0-15 more red votes and 0-7 more green, most
// of them, is one byte: red<<3 | green. Any other is the byte wide, then
// the three differences as varints.
type series []byte

// wide starts a point that is not one byte.
const wide = 0x80

// next decodes the point after prev at the start of s and returns it and
// the rest of s.
func (s series) next(prev TrendPoint) (TrendPoint, series) {
	if b := s[0]; b != wide {
		return TrendPoint{Day: prev.Day + 1, Red: prev.Red + int64(b>>3), Green: prev.Green + int64(b&7)}, s[1:]
	}
	s = s[1:]
	d, n := binary.Uvarint(s)
	s = s[n:]
	r, n := binary.Varint(s)
	s = s[n:]
	g, n := binary.Varint(s)
	return TrendPoint{Day: prev.Day + int32(d), Red: prev.Red + r, Green: prev.Green + g}, s[n:]
}

func (s series) decode() []TrendPoint {
	out := make([]TrendPoint, 0, s.count())
	var p TrendPoint
	for len(s) > 0 {
		p, s = s.next(p)
		out = append(out, p)
	}
	return out
}

// firstDay is the day of s's first point; s is not empty.
func (s series) firstDay() int32 {
	p, _ := s.next(TrendPoint{})
	return p.Day
}

func encode(points []TrendPoint) series { return appendSeries(make([]byte, 0, len(points)*4), points) }

func appendSeries(buf []byte, points []TrendPoint) []byte {
	var prev TrendPoint
	for _, p := range points {
		d, r, g := p.Day-prev.Day, p.Red-prev.Red, p.Green-prev.Green
		if d == 1 && r >= 0 && r < 16 && g >= 0 && g < 8 {
			buf = append(buf, byte(r<<3|g))
		} else {
			buf = append(buf, wide)
			buf = binary.AppendUvarint(buf, uint64(d))
			buf = binary.AppendVarint(buf, r)
			buf = binary.AppendVarint(buf, g)
		}
		prev = p
	}
	return buf
}

// Trends holds every flag's daily points. It is immutable: With returns a
// new Trends. It holds no pointer per flag: the ids and the series are
// each one run of bytes, with an index of where each ends, and order
// lists the entries by id. A map of ids to series was a third of its
// bytes and two pointers a flag for the collector to follow.
type Trends struct {
	keys, data      []byte
	keyEnd, dataEnd []uint32 // entry i is keys[keyEnd[i-1]:keyEnd[i]], data[dataEnd[i-1]:dataEnd[i]]
	order           []uint32 // the entries, ascending by id
	rows, size      int      // points and bytes of series held
	first           int32    // the earliest day held
	version         uint64
}

// trendVersions numbers the histories a process makes (see Version).
var trendVersions atomic.Uint64

// Version is a number no other history of the process has: a cache tells
// two histories apart by it without keeping either alive, as holding the
// pointer would (every load that finds the daily snapshots changed makes
// a new history, of 10 MB at 100,000 flags).
func (t *Trends) Version() uint64 { return t.version }

// Rows is the number of points held.
func (t *Trends) Rows() int { return t.rows }

// Bytes is the size of the encoded series.
func (t *Trends) Bytes() int { return t.size }

// len is the number of flags held.
func (t *Trends) len() int { return len(t.order) }

// entry returns the id and series of entry i (in the order added).
func (t *Trends) entry(i uint32) (string, series) {
	k0, d0 := uint32(0), uint32(0)
	if i > 0 {
		k0, d0 = t.keyEnd[i-1], t.dataEnd[i-1]
	}
	k := t.keys[k0:t.keyEnd[i]]
	return unsafe.String(unsafe.SliceData(k), len(k)), series(t.data[d0:t.dataEnd[i]:t.dataEnd[i]])
}

// at returns the id and series of the i-th flag by id.
func (t *Trends) at(i int) (string, series) { return t.entry(t.order[i]) }

// series returns flagID's series, nil where none.
func (t *Trends) series(flagID string) series {
	i, ok := slices.BinarySearchFunc(t.order, flagID, func(e uint32, id string) int {
		k, _ := t.entry(e)
		return strings.Compare(k, id)
	})
	if !ok {
		return nil
	}
	_, s := t.entry(t.order[i])
	return s
}

// Of returns the points of a flag with Day in [from, to], ascending.
func (t *Trends) Of(flagID string, from, to int32) []TrendPoint {
	ps := t.series(flagID).decode()
	lo, hi := 0, len(ps)
	for lo < hi && ps[lo].Day < from {
		lo++
	}
	for hi > lo && ps[hi-1].Day > to {
		hi--
	}
	return ps[lo:hi]
}

// add appends flagID's series (its points encoded); done orders them.
func (t *Trends) add(flagID string, points []TrendPoint) {
	t.keys = append(t.keys, flagID...)
	t.keyEnd = append(t.keyEnd, uint32(len(t.keys)))
	t.data = appendSeries(t.data, points)
	t.dataEnd = append(t.dataEnd, uint32(len(t.data)))
	t.rows += len(points)
	t.first = min(t.first, points[0].Day)
}

// done orders the entries by id, keeping the last of any id added twice,
// and gives back the spare capacity of the appends.
func (t *Trends) done() *Trends {
	t.order = make([]uint32, len(t.keyEnd))
	for i := range t.order {
		t.order[i] = uint32(i)
	}
	slices.SortStableFunc(t.order, func(a, b uint32) int {
		ka, _ := t.entry(a)
		kb, _ := t.entry(b)
		return strings.Compare(ka, kb)
	})
	kept := t.order[:0]
	t.first, t.size = 1<<31-1, 0
	for i, e := range t.order {
		k, s := t.entry(e)
		if i+1 < len(t.order) {
			if next, _ := t.entry(t.order[i+1]); next == k {
				t.rows -= s.count()
				continue
			}
		}
		kept = append(kept, e)
		t.first = min(t.first, s.firstDay())
		t.size += len(s)
	}
	t.order = exact(kept)
	t.keys, t.data = exact(t.keys), exact(t.data)
	t.keyEnd, t.dataEnd = exact(t.keyEnd), exact(t.dataEnd)
	t.version = trendVersions.Add(1)
	return t
}

// exact is s in an array of its length: appends leave up to as much again
// spare, which a history, kept for a day, would hold all that time.
func exact[S ~[]E, E any](s S) S {
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	return append(S(make([]E, 0, len(s))), s...)
}

func newTrends() *Trends { return &Trends{first: 1<<31 - 1} }

// TrendBuilder makes a Trends from rows that come grouped by flag, days
// ascending within a flag, as a full load reads them.
type TrendBuilder struct {
	t      *Trends
	oldest int32
	id     []byte
	points []TrendPoint
}

// NewTrendBuilder starts an empty Trends keeping days from oldest on.
func NewTrendBuilder(oldest int32) *TrendBuilder {
	return &TrendBuilder{t: newTrends(), oldest: oldest}
}

// Add appends one row; flagID may be a reused buffer.
func (b *TrendBuilder) Add(flagID []byte, day int32, red, green int64) {
	if string(flagID) != string(b.id) {
		b.flush()
		b.id = append(b.id[:0], flagID...)
	}
	if day < b.oldest {
		return
	}
	if n := len(b.points); n > 0 && b.points[n-1].Day >= day {
		return // out of order or repeated: the key order forbids it, ignore
	}
	b.points = append(b.points, TrendPoint{Day: day, Red: red, Green: green})
}

func (b *TrendBuilder) flush() {
	if len(b.id) > 0 && len(b.points) > 0 {
		b.t.add(string(b.id), b.points)
	}
	b.points = b.points[:0]
}

// Done returns the Trends built.
func (b *TrendBuilder) Done() *Trends {
	b.flush()
	b.id = b.id[:0]
	return b.t.done()
}

// With returns t with rows merged in (a row for an existing day replaces
// it); series that start more than trimSlack days before oldest are
// trimmed to oldest.
func (t *Trends) With(rows []TrendRow, oldest int32) *Trends {
	n := newTrends()
	touched := map[string][]TrendRow{}
	for _, r := range rows {
		touched[r.FlagID] = append(touched[r.FlagID], r)
	}
	stale := oldest - trimSlack
	n.keys = make([]byte, 0, len(t.keys))
	n.data = make([]byte, 0, len(t.data))
	for i := range t.len() {
		id, s := t.at(i)
		if _, ok := touched[id]; ok {
			continue
		}
		if len(s) > 0 {
			if s.firstDay() < stale {
				touched[id] = nil // re-encode without the old days
				continue
			}
		}
		n.keys = append(n.keys, id...)
		n.keyEnd = append(n.keyEnd, uint32(len(n.keys)))
		n.data = append(n.data, s...)
		n.dataEnd = append(n.dataEnd, uint32(len(n.data)))
		n.rows += s.count()
		if len(s) > 0 {
			n.first = min(n.first, s.firstDay())
		}
	}
	for id, rs := range touched {
		ps := t.series(id).decode()
		for _, r := range rs {
			ps = upsertPoint(ps, TrendPoint{Day: r.Day, Red: r.Red, Green: r.Green})
		}
		k := 0
		for k < len(ps) && ps[k].Day < oldest {
			k++
		}
		if ps = ps[k:]; len(ps) > 0 {
			n.add(id, ps)
		}
	}
	return n.done()
}

// count is the number of points in s.
func (s series) count() int {
	n := 0
	for p := (TrendPoint{}); len(s) > 0; n++ {
		p, s = s.next(p)
	}
	return n
}

func upsertPoint(ps []TrendPoint, p TrendPoint) []TrendPoint {
	i := len(ps)
	for i > 0 && ps[i-1].Day > p.Day {
		i--
	}
	if i > 0 && ps[i-1].Day == p.Day {
		ps[i-1] = p
		return ps
	}
	ps = append(ps, TrendPoint{})
	copy(ps[i+1:], ps[i:])
	ps[i] = p
	return ps
}

// Update is With, except that it returns t itself when rows hold nothing
// new and no series needs trimming, so that ticks without news share it.
func (t *Trends) Update(rows []TrendRow, oldest int32) *Trends {
	changed := rows[:0:0]
	for _, r := range rows {
		ps := t.Of(r.FlagID, r.Day, r.Day)
		if len(ps) == 1 && ps[0].Red == r.Red && ps[0].Green == r.Green {
			continue
		}
		changed = append(changed, r)
	}
	if len(changed) == 0 && (t.rows == 0 || t.first >= oldest-trimSlack) {
		return t
	}
	return t.With(changed, oldest)
}
