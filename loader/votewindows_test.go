package loader

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The windows must count exactly what the SQL over every vote counted:
// votes at or after each cut, to the millisecond, through any sequence of
// flags gaining (added or set), losing (taken, where holds says it can)
// and replacing votes.
func TestVoteWindowsCountLikeSQL(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 30, 123e6, time.UTC)
	w := newVoteWindows(now)
	rng := rand.New(rand.NewPCG(1, 2))
	truth := map[string][]int64{}
	ids := []string{"a", "b", "c", "d", "e", "f"}
	span := (31 * 24 * time.Hour).Milliseconds()
	for step := range 3000 {
		id := ids[rng.IntN(len(ids))]
		var ts []int64
		for range rng.IntN(6) {
			// Up to 31 days back: some fall before the 30-day window, many
			// on the same minute, some on the same millisecond.
			t := now.UnixMilli() - rng.Int64N(span)
			if rng.IntN(4) == 0 {
				t = now.Add(-24*time.Hour).UnixMilli() + rng.Int64N(3) - 1
			}
			ts = append(ts, t)
		}
		switch rng.IntN(3) {
		case 0:
			// New votes added to what the flag holds, in any order.
			w.addFlag(id, slices.Clone(ts))
			truth[id] = append(truth[id], ts...)
		case 1:
			w.setFlag(id, slices.Clone(ts))
			truth[id] = ts
		default:
			// Votes removed: some the flag holds, and sometimes one more
			// of a time it holds, which it does not hold twice.
			var gone []int64
			for _, t := range truth[id] {
				if rng.IntN(3) == 0 {
					gone = append(gone, t)
				}
			}
			since := now.Add(-voteWindow).UnixMilli() + rng.Int64N(2)*rng.Int64N(span/2)
			if len(gone) > 0 && rng.IntN(3) == 0 {
				gone = append(gone, gone[rng.IntN(len(gone))])
			}
			want := heldAll(truth[id], gone, max(since, w.base))
			if got := w.holds(id, gone, since); got != want {
				t.Fatalf("step %d: holds(%v) since %d = %v, want %v (the flag holds %v)", step, gone, since, got, want, truth[id])
			}
			if heldAll(truth[id], gone, w.base) { // every one held: takeFlag's condition
				w.takeFlag(id, slices.Clone(gone))
				for _, g := range gone {
					if i := slices.Index(truth[id], g); i >= 0 {
						truth[id] = slices.Delete(truth[id], i, i+1)
					}
				}
			}
		}
		if step%50 != 0 {
			continue
		}
		for _, cut := range []time.Time{now.Add(-24 * time.Hour), now.Add(-7 * 24 * time.Hour), now.Add(-voteWindow),
			now.Add(-24*time.Hour + time.Millisecond), now.Add(-24*time.Hour - time.Millisecond)} {
			var want int64
			for _, ts := range truth {
				for _, t := range ts {
					if t >= cut.UnixMilli() && t >= w.base {
						want++
					}
				}
			}
			if got := w.since(cut); got != want {
				t.Fatalf("step %d: since %s = %d, want %d", step, cut, got, want)
			}
		}
	}
	for _, id := range ids {
		w.setFlag(id, nil)
	}
	minutes := 0
	for _, s := range w.minutes {
		if s.n > 0 {
			minutes++
		}
	}
	if n := w.since(now.Add(-voteWindow)); n != 0 || minutes != 0 || len(w.flags) != 0 || len(w.pool) > 4096 {
		t.Fatalf("after removing every flag: %d votes, %d minutes, %d flags, a pool of %d", n, minutes, len(w.flags), len(w.pool))
	}
	if !w.covers(now.Add(36*time.Hour)) || w.covers(now.Add(49*time.Hour)) {
		t.Error("covers: the windows span 30 days plus two days of ticks")
	}
}

// heldAll is whether held holds one of each of gone at or after from,
// as a multiset.
func heldAll(held, gone []int64, from int64) bool {
	n := map[int64]int{}
	for _, t := range held {
		if t >= from {
			n[t]++
		}
	}
	for _, t := range gone {
		if t >= from {
			if n[t] == 0 {
				return false
			}
			n[t]--
		}
	}
	return true
}

// A time far ahead of the windows (a clock that ran ahead) counts after
// every edge, and leaves with its flag, though it is saturated.
func TestVoteWindowsFarFuture(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w := newVoteWindows(now)
	far := now.Add(100 * 24 * time.Hour).UnixMilli()
	w.setFlag("a", []int64{now.Add(-time.Hour).UnixMilli(), far, far + 1, math.MaxInt64})
	if got := w.since(now.Add(-24 * time.Hour)); got != 4 {
		t.Fatalf("since a day ago = %d, want 4", got)
	}
	w.setFlag("a", []int64{far})
	if got := w.since(now.Add(-24 * time.Hour)); got != 1 {
		t.Fatalf("after replacing: since a day ago = %d, want 1", got)
	}
	w.setFlag("a", nil)
	if got := w.since(now.Add(-voteWindow)); got != 0 || len(w.flags) != 0 {
		t.Fatalf("after removing: %d votes, %d flags", got, len(w.flags))
	}
	// A flag whose votes all fall before the windows holds nothing.
	w = newVoteWindows(now)
	w.setFlag("old", []int64{now.Add(-40 * 24 * time.Hour).UnixMilli(), now.Add(-31 * 24 * time.Hour).UnixMilli()})
	if got := w.since(now.Add(-voteWindow)); got != 0 || len(w.flags) != 0 || len(w.pool) != 0 {
		t.Fatalf("a flag of old votes only: %d votes, %d flags, a pool of %d", got, len(w.flags), len(w.pool))
	}
}

// However many loads replace, remove and add flags' votes, the windows
// hold at most about twice what the votes and ids held take: the pool of
// times and the chunks of ids are compacted.
func TestVoteWindowsBounded(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w := newVoteWindows(now)
	rng := rand.New(rand.NewPCG(3, 4))
	span := voteWindow.Milliseconds()
	for step := range 200_000 {
		// 500 flags live at a time, each load a new id for one of them.
		id := fmt.Sprintf("flag-%d-%d", step%500, step/5000)
		if step%7 == 0 {
			w.setFlag(fmt.Sprintf("flag-%d-%d", step%500, step/5000-1), nil)
		}
		ts := make([]int64, rng.IntN(40))
		for i := range ts {
			ts[i] = now.UnixMilli() - rng.Int64N(span)
		}
		if step%3 == 0 {
			w.addFlag(id, ts[:min(len(ts), 3)]) // a few new votes, as a tick adds them
		} else {
			w.setFlag(id, ts)
		}
		var votes int
		for _, k := range w.flags {
			votes += int(w.slabs[k].n)
		}
		if step%1000 == 0 {
			// Each vote is in two slabs; the pool is compacted past four
			// times that.
			if len(w.pool) > 4*2*votes+4096+80 {
				t.Fatalf("step %d: a pool of %d times for %d votes", step, len(w.pool), votes)
			}
			if w.deadKeys > w.keyBytes+keyChunk {
				t.Fatalf("step %d: %d bytes of removed ids kept for %d held", step, w.deadKeys, w.keyBytes)
			}
			if int64(votes) != w.since(now.Add(-voteWindow)) {
				t.Fatalf("step %d: %d votes held, %d counted", step, votes, w.since(now.Add(-voteWindow)))
			}
		}
	}
	if len(w.slabs) > 1000 {
		t.Errorf("%d flag slots for at most 1,000 flags held at once", len(w.slabs))
	}
}

// A flag whose votes become fewer gives the room back: many flags that
// had a thousand votes and keep one leave a pool near what one vote each
// takes, not the thousands they held.
func TestVoteWindowsShrink(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w := newVoteWindows(now)
	rng := rand.New(rand.NewPCG(7, 8))
	span := voteWindow.Milliseconds()
	const flags = 200
	for i := range flags {
		ts := make([]int64, 1000)
		for j := range ts {
			ts[j] = now.UnixMilli() - rng.Int64N(span)
		}
		slices.Sort(ts)
		w.setFlag(fmt.Sprint("flag-", i), ts)
	}
	for i := range flags {
		w.setFlag(fmt.Sprint("flag-", i), []int64{now.UnixMilli() - rng.Int64N(span)})
	}
	if got := w.since(now.Add(-voteWindow)); got != flags {
		t.Fatalf("%d votes counted, want %d", got, flags)
	}
	if len(w.pool) > 4*2*flags+4096 {
		t.Errorf("a pool of %d times for %d votes", len(w.pool), flags)
	}
}

// The windows are a few objects for the collector to mark however many
// votes they hold, not one or more per flag and minute.
func TestVoteWindowsFewObjects(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	objects := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapObjects
	}
	rng := rand.New(rand.NewPCG(5, 6))
	span := voteWindow.Milliseconds()
	before := objects()
	w := newVoteWindows(now)
	for i := range 20_000 {
		ts := make([]int64, 1+rng.IntN(20))
		for j := range ts {
			ts[j] = now.UnixMilli() - rng.Int64N(span)
		}
		slices.Sort(ts)
		w.setFlag(fmt.Sprintf("flg_%012x", i), ts)
	}
	after := objects()
	runtime.KeepAlive(w)
	if n := after - min(after, before); n > 500 {
		t.Errorf("the windows of 20,000 flags are %d heap objects; want a few", n)
	}
}
