package memstore

import (
	"cmp"
	"slices"
	"time"
)

// TrendDays is how many days of history the snapshot keeps per flag.
const TrendDays = 90

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

// Trends holds every flag's daily points, ascending by day. It is
// immutable: With returns a new Trends that shares every series it did not
// touch, so snapshots carry unchanged history over for free.
type Trends struct {
	byFlag map[string][]TrendPoint
	rows   int
	first  int32 // the earliest day held
}

// Rows is the number of points held.
func (t *Trends) Rows() int { return t.rows }

// Of returns the points of a flag with Day in [from, to], ascending.
func (t *Trends) Of(flagID string, from, to int32) []TrendPoint {
	ps := t.byFlag[flagID]
	lo, _ := slices.BinarySearchFunc(ps, from, func(p TrendPoint, d int32) int { return cmp.Compare(p.Day, d) })
	hi, found := slices.BinarySearchFunc(ps, to, func(p TrendPoint, d int32) int { return cmp.Compare(p.Day, d) })
	if found {
		hi++
	}
	if lo >= hi {
		return nil
	}
	return ps[lo:hi]
}

// With returns t with rows merged in (a row for an existing day replaces
// it) and every point older than oldest dropped.
func (t *Trends) With(rows []TrendRow, oldest int32) *Trends {
	n := &Trends{byFlag: make(map[string][]TrendPoint, len(t.byFlag)+1)}
	touched := map[string][]TrendRow{}
	for _, r := range rows {
		touched[r.FlagID] = append(touched[r.FlagID], r)
	}
	for id, ps := range t.byFlag {
		if len(ps) > 0 && ps[0].Day < oldest {
			k, _ := slices.BinarySearchFunc(ps, oldest, func(p TrendPoint, d int32) int { return cmp.Compare(p.Day, d) })
			ps = ps[k:]
		}
		if len(ps) > 0 {
			n.byFlag[id] = ps
		}
	}
	for id, rs := range touched {
		ps := slices.Clone(n.byFlag[id])
		for _, r := range rs {
			if r.Day < oldest {
				continue
			}
			p := TrendPoint{Day: r.Day, Red: r.Red, Green: r.Green}
			k, found := slices.BinarySearchFunc(ps, r.Day, func(p TrendPoint, d int32) int { return cmp.Compare(p.Day, d) })
			if found {
				ps[k] = p
			} else {
				ps = slices.Insert(ps, k, p)
			}
		}
		if len(ps) > 0 {
			n.byFlag[id] = slices.Clip(ps)
		}
	}
	n.first = int32(1<<31 - 1)
	for _, ps := range n.byFlag {
		n.rows += len(ps)
		n.first = min(n.first, ps[0].Day)
	}
	return n
}

// Update is With, except that it returns t itself when rows hold nothing
// new and no point has aged out, so that ticks without news share it.
func (t *Trends) Update(rows []TrendRow, oldest int32) *Trends {
	news := rows[:0:0]
	for _, r := range rows {
		ps := t.Of(r.FlagID, r.Day, r.Day)
		if len(ps) == 1 && ps[0].Red == r.Red && ps[0].Green == r.Green {
			continue
		}
		news = append(news, r)
	}
	if len(news) == 0 && (t.rows == 0 || t.first >= oldest) {
		return t
	}
	return t.With(news, oldest)
}
