package loader

import (
	"math"
	"slices"
	"time"
	"unsafe"
)

// voteWindows holds the creation times of the votes of the last 30 days
// on approved flags, so that /stats can count the votes of the last 24
// hours, 7 and 30 days without a tick reading them all again: a full load
// reads them once, and a tick adds the votes it has not seen and takes
// those removed, reading a flag's votes whole only when it cannot follow
// them so (votes.go).
//
// Times are counted per minute in a Fenwick tree, and kept exactly within
// each minute, so that a window's edge falls between two votes to the
// millisecond, as the SQL it replaces did.
//
// It is a few objects, whatever the votes: every time is an entry of one
// pool, a flag's times and a minute's each a run of it (a slab); the ids
// are copied into chunks of 64 KB, and the map from id to slab holds
// indices. The collector marks it in a few steps, where a map of ids to
// slices of times and one of minutes to slices (objects per flag and per
// minute: 83,000 for 20,000 flags in TestVoteWindowsFewObjects) took a
// fifth of a collection's CPU at the bench's 100,000 flags (a forced one
// 12-15 ms with them, 10-11 ms without).
type voteWindows struct {
	base  int64   // Unix ms of the start of minute 0
	tree  []int32 // Fenwick tree of the votes per minute
	flags map[string]int32
	// slabs[flags[id]] is the flag's vote times, in no order; a removed
	// flag's index is in free until a new flag takes it.
	slabs []slab
	free  []int32
	// minutes[m] is minute m's vote times, ascending.
	minutes []slab
	// pool holds every slab's times, ms after base (saturated, see rel);
	// each time held is in two slabs, its flag's and its minute's.
	pool []uint32
	// keys is the chunk the next id is copied into; keyBytes the bytes of
	// the ids of flags held, deadKeys those of flags removed, still in
	// their chunks.
	keys               []byte
	keyBytes, deadKeys int
}

// slab is a run of the pool: pool[off:off+n], with room for size.
type slab struct{ off, n, size uint32 }

// keyChunk is the size of a chunk of ids.
const keyChunk = 64 << 10

// windowSpan is how far from its base a voteWindows can count: the 30-day
// window and two more days of ticks. A load after that builds a new one.
const windowSpan = 32 * 24 * time.Hour

// voteWindow is the oldest of the windows /stats counts.
const voteWindow = 30 * 24 * time.Hour

func newVoteWindows(now time.Time) *voteWindows {
	base := now.Add(-voteWindow).Truncate(time.Minute).UnixMilli()
	n := windowSpan/time.Minute + 1
	return &voteWindows{base: base, flags: map[string]int32{}, tree: make([]int32, n), minutes: make([]slab, n-1)}
}

// covers reports whether the windows ending at now can be counted.
func (w *voteWindows) covers(now time.Time) bool {
	return now.Add(-voteWindow).UnixMilli() >= w.base && now.UnixMilli() < w.base+windowSpan.Milliseconds()
}

// rel is ms (at or after base) as milliseconds after base, saturated at
// 49 days: a time that far ahead of every window's edge counts the same
// (after it) whatever its value.
func (w *voteWindows) rel(ms int64) uint32 { return uint32(min(ms-w.base, math.MaxUint32)) }

// minute is the minute of a time rel ms after base; the last one holds
// every later time too.
func (w *voteWindows) minute(rel uint32) int32 {
	return int32(min(int64(rel)/60_000, int64(len(w.tree)-2)))
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

// times is s's times.
func (w *voteWindows) times(s slab) []uint32 { return w.pool[s.off : s.off+s.n : s.off+s.size] }

// alloc returns an empty slab with room for size times, at the pool's end.
func (w *voteWindows) alloc(size int) slab {
	off := len(w.pool)
	w.pool = slices.Grow(w.pool, size)[:off+size]
	return slab{off: uint32(off), size: uint32(size)}
}

// setFlag replaces the vote times of a flag (nil: it has none, or it is
// not approved); times is not kept.
func (w *voteWindows) setFlag(id string, times []int64) {
	k, had := w.flags[id]
	var s slab
	if had {
		s = w.slabs[k]
		for _, t := range w.times(s) {
			w.remove(t)
		}
		s.n = 0
	}
	n := w.inWindow(times)
	switch {
	case n == 0 && had:
		delete(w.flags, id)
		w.slabs[k] = slab{}
		w.free = append(w.free, k)
		w.keyBytes -= len(id)
		w.deadKeys += len(id)
		w.compact()
		return
	case n == 0:
		return
	case !had:
		k = w.newFlag(id)
		s = w.alloc(n)
	case n > int(s.size):
		s = w.alloc(n)
	}
	w.slabs[k] = w.fill(s, times)
	w.compact()
}

// addFlag adds vote times to a flag's (those before base it skips): the
// votes of a held flag that a load found new, in any order. It costs what
// the new votes cost, not what the flag holds.
func (w *voteWindows) addFlag(id string, times []int64) {
	n := w.inWindow(times)
	if n == 0 {
		return
	}
	k, had := w.flags[id]
	if !had {
		k = w.newFlag(id)
	}
	w.slabs[k] = w.fill(w.room(w.slabs[k], n), times)
	w.compact()
}

// takeFlag removes from a flag's times one of each of times (those
// before base it skips, and those it does not hold: see holds): the votes
// removed since the last load. It reads what the flag holds once for
// each time taken (at most the 16 removals a flag keeps).
func (w *voteWindows) takeFlag(id string, times []int64) {
	k, ok := w.flags[id]
	if !ok || w.inWindow(times) == 0 {
		return
	}
	s := w.slabs[k]
	held := w.times(s)
	for _, t := range times {
		if t < w.base {
			continue
		}
		r := w.rel(t)
		i := slices.Index(held, r)
		if i < 0 {
			continue // before the windows' edge, not read (holds)
		}
		held[i] = held[len(held)-1]
		held = held[:len(held)-1]
		w.remove(r)
	}
	s.n = uint32(len(held))
	w.slabs[k] = s
	if s.n == 0 {
		w.setFlag(id, nil) // the flag's index and id freed
	}
}

// holds is whether a flag's times hold one of each of times at or after
// since (takeFlag's condition). Before since, in no window, a flag read
// whole holds no time, one given fresh votes any time after base.
func (w *voteWindows) holds(id string, times []int64, since int64) bool {
	if len(times) == 0 {
		return true // most flags a load reads: no map made
	}
	want := map[uint32]int{}
	for _, t := range times {
		if t >= max(since, w.base) {
			want[w.rel(t)]++
		}
	}
	if len(want) == 0 {
		return true
	}
	k, ok := w.flags[id]
	if !ok {
		return false
	}
	for _, r := range w.times(w.slabs[k]) {
		if n, ok := want[r]; ok {
			if n == 1 {
				delete(want, r)
			} else {
				want[r] = n - 1
			}
		}
	}
	return len(want) == 0
}

// inWindow is how many of times are at or after base.
func (w *voteWindows) inWindow(times []int64) int {
	n := 0
	for _, t := range times {
		if t >= w.base {
			n++
		}
	}
	return n
}

// fill appends to a flag's slab s, which has room for them, the times at
// or after base among times, counting each, and returns the slab.
func (w *voteWindows) fill(s slab, times []int64) slab {
	for _, t := range times {
		if t >= w.base {
			r := w.rel(t)
			w.pool[s.off+s.n] = r
			s.n++
			w.add(r)
		}
	}
	return s
}

// room returns s, or a copy of it twice as large at the pool's end, with
// room for n more times.
func (w *voteWindows) room(s slab, n int) slab {
	if int(s.n)+n <= int(s.size) {
		return s
	}
	grown := w.alloc(max(4, 2*(int(s.n)+n)))
	grown.n = uint32(copy(w.pool[grown.off:grown.off+grown.size], w.times(s)))
	return grown
}

// newFlag gives id, not held, an index, and keeps a copy of it.
func (w *voteWindows) newFlag(id string) int32 {
	var k int32
	if n := len(w.free); n > 0 {
		k, w.free = w.free[n-1], w.free[:n-1]
	} else {
		k = int32(len(w.slabs))
		w.slabs = append(w.slabs, slab{})
	}
	w.flags[w.keep(id)] = k
	w.keyBytes += len(id)
	return k
}

// keep returns a copy of id in the chunk of ids.
func (w *voteWindows) keep(id string) string {
	if id == "" {
		return ""
	}
	if len(id) > cap(w.keys)-len(w.keys) {
		w.keys = make([]byte, 0, max(keyChunk, len(id)))
	}
	start := len(w.keys)
	w.keys = append(w.keys, id...)
	return unsafe.String(&w.keys[start], len(id))
}

// add counts a vote at rel.
func (w *voteWindows) add(rel uint32) {
	m := w.minute(rel)
	s := &w.minutes[m]
	*s = w.room(*s, 1)
	ts := w.pool[s.off : s.off+s.n+1]
	i, _ := slices.BinarySearch(ts[:s.n], rel)
	copy(ts[i+1:], ts[i:s.n])
	ts[i] = rel
	s.n++
	w.bump(m, 1)
}

// remove uncounts a vote at rel.
func (w *voteWindows) remove(rel uint32) {
	m := w.minute(rel)
	s := &w.minutes[m]
	ts := w.times(*s)
	i, ok := slices.BinarySearch(ts, rel)
	if !ok {
		return
	}
	copy(ts[i:], ts[i+1:])
	s.n--
	w.bump(m, -1)
	if s.n == 0 {
		*s = slab{}
	}
}

// compact copies the slabs to a new pool, each with no room to spare,
// when the pool is more than four times what the times held take (each
// twice: a minute's slab grows by doubling, a flag's keeps its room when
// its times become fewer, and a slab left behind is freed room); and the
// ids to new chunks when more of their bytes are a removed flag's than a
// held one's: so the windows hold a bounded multiple of what their votes
// and ids take, however many loads change them.
func (w *voteWindows) compact() {
	if held := 2 * int(w.through(int32(len(w.tree)-2))); len(w.pool) > 4*held+4096 {
		pool := make([]uint32, 0, held)
		move := func(s *slab) {
			if s.size == 0 {
				return
			}
			off := len(pool)
			pool = append(pool, w.times(*s)...)
			*s = slab{off: uint32(off), n: s.n, size: s.n}
		}
		for i := range w.slabs {
			move(&w.slabs[i])
		}
		for i := range w.minutes {
			move(&w.minutes[i])
		}
		w.pool = pool
	}
	if w.deadKeys > w.keyBytes+keyChunk {
		flags := make(map[string]int32, len(w.flags))
		w.keys = nil
		for id, k := range w.flags {
			flags[w.keep(id)] = k
		}
		w.flags, w.deadKeys = flags, 0
	}
}

// since is the number of votes at or after cut.
func (w *voteWindows) since(cut time.Time) int64 {
	ms := cut.UnixMilli()
	total := w.through(int32(len(w.tree) - 2))
	if ms <= w.base {
		return total
	}
	r := w.rel(ms)
	m := w.minute(r)
	before := w.through(m - 1)
	i, _ := slices.BinarySearch(w.times(w.minutes[m]), r) // the times of minute m before cut
	return total - before - int64(i)
}
