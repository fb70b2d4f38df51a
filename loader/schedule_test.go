package loader_test

import (
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/loader"
)

// TestReschedule: a running loader on hour-long schedules, with listening
// off, loads nothing; rescheduled to a tick every 50 ms, each load runs
// again and again (the new schedule applies at once, not after one more
// hour), and back on an hour it stops.
func TestReschedule(t *testing.T) {
	r := runLoader(t, loader.SQLite, false)
	flags, keys := r.settle(t, "flags", 300*time.Millisecond), r.count("keys")
	fast := cron.Every(50 * time.Millisecond)
	r.ld.Reschedule(fast, nil)
	waitFor(t, "flag loads on the new schedule", func() bool { return r.count("flags") >= flags+5 })
	if n := r.count("keys"); n != keys {
		t.Errorf("the key load ran %d times with only the flag load rescheduled", n-keys)
	}
	r.ld.Reschedule(never, fast)
	waitFor(t, "key loads on the new schedule", func() bool { return r.count("keys") >= keys+5 })
	after := r.settle(t, "flags", 300*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // six of the old ticks
	if n := r.count("flags"); n != after {
		t.Errorf("%d flag loads after the flag load went back to an hour, want none", n-after)
	}
}
