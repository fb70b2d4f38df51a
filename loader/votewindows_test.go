package loader

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The windows must count exactly what the SQL over every vote counted:
// votes at or after each cut, to the millisecond, through any sequence of
// flags gaining, losing and replacing votes.
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
		slices.Sort(ts)
		w.setFlag(id, slices.Clone(ts))
		truth[id] = ts
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
	if n := w.since(now.Add(-voteWindow)); n != 0 || len(w.minutes) != 0 || len(w.byFlag) != 0 {
		t.Fatalf("after removing every flag: %d votes, %d minutes, %d flags", n, len(w.minutes), len(w.byFlag))
	}
	if !w.covers(now.Add(36*time.Hour)) || w.covers(now.Add(49*time.Hour)) {
		t.Error("covers: the windows span 30 days plus two days of ticks")
	}
}
