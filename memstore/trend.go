package memstore

import (
	"encoding/binary"
	"time"
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

// series is one flag's points, ascending by day, as varints of the
// differences from the previous point: a few bytes per day instead of 24.
type series []byte

func (s series) decode() []TrendPoint {
	var out []TrendPoint
	var p TrendPoint
	for len(s) > 0 {
		d, n := binary.Uvarint(s)
		s = s[n:]
		r, n := binary.Varint(s)
		s = s[n:]
		g, n := binary.Varint(s)
		s = s[n:]
		p.Day += int32(d)
		p.Red += r
		p.Green += g
		out = append(out, p)
	}
	return out
}

func encode(points []TrendPoint) series { return appendSeries(make([]byte, 0, len(points)*4), points) }

func appendSeries(buf []byte, points []TrendPoint) []byte {
	var prev TrendPoint
	for _, p := range points {
		buf = binary.AppendUvarint(buf, uint64(p.Day-prev.Day))
		buf = binary.AppendVarint(buf, p.Red-prev.Red)
		buf = binary.AppendVarint(buf, p.Green-prev.Green)
		prev = p
	}
	return buf
}

// Trends holds every flag's daily points. It is immutable: With returns a
// new Trends that shares every series it did not touch, so snapshots carry
// unchanged history over for free.
type Trends struct {
	byFlag map[string]series
	rows   int
	first  int32 // the earliest day held
}

// Rows is the number of points held.
func (t *Trends) Rows() int { return t.rows }

// Bytes is the size of the encoded series.
func (t *Trends) Bytes() int {
	n := 0
	for _, s := range t.byFlag {
		n += len(s)
	}
	return n
}

// Of returns the points of a flag with Day in [from, to], ascending.
func (t *Trends) Of(flagID string, from, to int32) []TrendPoint {
	ps := t.byFlag[flagID].decode()
	lo, hi := 0, len(ps)
	for lo < hi && ps[lo].Day < from {
		lo++
	}
	for hi > lo && ps[hi-1].Day > to {
		hi--
	}
	return ps[lo:hi]
}

// TrendBuilder makes a Trends from rows that come grouped by flag, days
// ascending within a flag, as a full load reads them in key order.
type TrendBuilder struct {
	t      *Trends
	oldest int32
	id     string
	points []TrendPoint
	arena  *arena // the ids and series: a history is built once and kept whole
}

// NewTrendBuilder starts an empty Trends keeping days from oldest on.
func NewTrendBuilder(oldest int32) *TrendBuilder {
	return &TrendBuilder{t: &Trends{byFlag: map[string]series{}, first: 1<<31 - 1}, oldest: oldest, arena: newArena()}
}

// Add appends one row; flagID may be a reused buffer, it is copied when a
// new flag starts.
func (b *TrendBuilder) Add(flagID []byte, day int32, red, green int64) {
	if string(flagID) != b.id {
		b.flush()
		b.id = b.arena.strBytes(flagID)
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
	if b.id != "" && len(b.points) > 0 {
		b.t.byFlag[b.id] = b.arena.keep(appendSeries(b.arena.buffer(len(b.points)*4), b.points))
		b.t.rows += len(b.points)
		b.t.first = min(b.t.first, b.points[0].Day)
	}
	b.points = b.points[:0]
}

// Done returns the Trends built.
func (b *TrendBuilder) Done() *Trends {
	b.flush()
	b.id = ""
	return b.t
}

// With returns t with rows merged in (a row for an existing day replaces
// it); series that start more than trimSlack days before oldest are
// trimmed to oldest.
func (t *Trends) With(rows []TrendRow, oldest int32) *Trends {
	n := &Trends{byFlag: make(map[string]series, len(t.byFlag)+1), first: 1<<31 - 1}
	touched := map[string][]TrendRow{}
	for _, r := range rows {
		touched[r.FlagID] = append(touched[r.FlagID], r)
	}
	stale := oldest - trimSlack
	for id, s := range t.byFlag {
		if _, ok := touched[id]; ok {
			continue
		}
		if len(s) > 0 {
			first, _ := binary.Uvarint(s)
			if int32(first) < stale {
				touched[id] = nil // re-encode without the old days
				continue
			}
		}
		n.byFlag[id] = s
	}
	for id, rs := range touched {
		ps := t.byFlag[id].decode()
		for _, r := range rs {
			ps = upsertPoint(ps, TrendPoint{Day: r.Day, Red: r.Red, Green: r.Green})
		}
		k := 0
		for k < len(ps) && ps[k].Day < oldest {
			k++
		}
		if ps = ps[k:]; len(ps) > 0 {
			n.byFlag[id] = encode(ps)
		}
	}
	for _, s := range n.byFlag {
		if len(s) > 0 {
			first, _ := binary.Uvarint(s)
			n.first = min(n.first, int32(first))
		}
	}
	n.rows = 0
	for _, s := range n.byFlag {
		n.rows += s.count()
	}
	return n
}

// count is the number of points in s.
func (s series) count() int {
	n := 0
	for len(s) > 0 {
		for k := 0; k < 3; k++ {
			for len(s) > 0 && s[0] >= 0x80 {
				s = s[1:]
			}
			s = s[1:]
		}
		n++
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
