package loader

import (
	"slices"
	"time"
)

// voteWindows holds the creation times of the votes of the last 30 days
// on approved flags, so that /stats can count the votes of the last 24
// hours, 7 and 30 days without a tick reading them all again: a full load
// reads them once, and a tick reads only the votes of the flags it read
// (a vote bumps its flag's updated_at, so every change to a flag's votes,
// and every change of its status, brings the flag into the tick).
//
// Times are counted per minute in a Fenwick tree, and kept exactly within
// each minute, so that a window's edge falls between two votes to the
// millisecond, as the SQL it replaces did.
type voteWindows struct {
	base    int64              // Unix ms of the start of minute 0
	byFlag  map[string][]int64 // each flag's vote times, Unix ms, ascending
	tree    []int32            // Fenwick tree of the votes per minute
	minutes map[int32][]int64  // the times of each minute that has any, ascending
}

// windowSpan is how far from its base a voteWindows can count: the 30-day
// window and two more days of ticks. A load after that builds a new one.
const windowSpan = 32 * 24 * time.Hour

// voteWindow is the oldest of the windows /stats counts.
const voteWindow = 30 * 24 * time.Hour

func newVoteWindows(now time.Time) *voteWindows {
	base := now.Add(-voteWindow).Truncate(time.Minute).UnixMilli()
	return &voteWindows{base: base, byFlag: map[string][]int64{},
		tree: make([]int32, windowSpan/time.Minute+1), minutes: map[int32][]int64{}}
}

// covers reports whether the windows ending at now can be counted.
func (w *voteWindows) covers(now time.Time) bool {
	return now.Add(-voteWindow).UnixMilli() >= w.base && now.UnixMilli() < w.base+windowSpan.Milliseconds()
}

func (w *voteWindows) minute(ms int64) int32 {
	return int32(min((ms-w.base)/60_000, int64(len(w.tree)-2)))
}

func (w *voteWindows) bump(m int32, by int32) {
	for i := int(m) + 1; i < len(w.tree); i += i & -i {
		w.tree[i] += by
	}
}

// through is the number of votes in minutes 0..m.
func (w *voteWindows) through(m int32) int64 {
	var n int64
	for i := int(m) + 1; i > 0; i -= i & -i {
		n += int64(w.tree[i])
	}
	return n
}

// setFlag replaces the vote times of a flag (nil: it has none, or it is
// not approved). times must be ascending; it is kept.
func (w *voteWindows) setFlag(id string, times []int64) {
	for _, t := range w.byFlag[id] {
		m := w.minute(t)
		ts := w.minutes[m]
		if i, ok := slices.BinarySearch(ts, t); ok {
			ts = slices.Delete(ts, i, i+1)
			w.bump(m, -1)
		}
		if len(ts) == 0 {
			delete(w.minutes, m)
		} else {
			w.minutes[m] = ts
		}
	}
	kept := times[:0:0]
	for _, t := range times {
		if t < w.base {
			continue
		}
		kept = append(kept, t)
		m := w.minute(t)
		ts := w.minutes[m]
		i, _ := slices.BinarySearch(ts, t)
		w.minutes[m] = slices.Insert(ts, i, t)
		w.bump(m, 1)
	}
	if len(kept) == 0 {
		delete(w.byFlag, id)
	} else {
		w.byFlag[id] = kept
	}
}

// since is the number of votes at or after cut.
func (w *voteWindows) since(cut time.Time) int64 {
	ms := cut.UnixMilli()
	total := w.through(int32(len(w.tree) - 2))
	if ms <= w.base {
		return total
	}
	m := w.minute(ms)
	before := w.through(m - 1)
	i, _ := slices.BinarySearch(w.minutes[m], ms) // the times of minute m before cut
	return total - before - int64(i)
}
