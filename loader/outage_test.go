package loader

import (
	"reflect"
	"testing"
	"time"
)

// TestOutageWarnsOnceAMinute: a feed that stays down is logged when it
// falls, then at most once every outageLogEvery with the failures since
// the last line counted, and its return with every failure and the whole
// time down; a second outage starts its own count.
func TestOutageWarnsOnceAMinute(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var o outage
	if args := o.back(t0); args != nil {
		t.Fatalf("back while up: %v, want nothing to log", args)
	}
	o.fell(t0) // warned of by the caller
	for s := 1; s < 60; s++ {
		if args, log := o.failed(at(time.Duration(s) * time.Second)); log {
			t.Fatalf("failure %d s after the fall logged %v: want none within a minute", s, args)
		}
	}
	args, log := o.failed(at(time.Minute))
	if want := []any{"failures", 60, "down_ms", int64(60_000)}; !log || !reflect.DeepEqual(args, want) {
		t.Fatalf("failure a minute after the fall: %v %v, want logged with %v", args, log, want)
	}
	if _, log := o.failed(at(time.Minute + 59*time.Second)); log {
		t.Fatal("a failure 59 s after the last line was logged")
	}
	args, log = o.failed(at(2*time.Minute + time.Second))
	if want := []any{"failures", 2, "down_ms", int64(121_000)}; !log || !reflect.DeepEqual(args, want) {
		t.Fatalf("failure 61 s after the last line: %v %v, want logged with %v", args, log, want)
	}
	if want := []any{"failures", 62, "down_ms", int64(150_000)}; !reflect.DeepEqual(o.back(at(150*time.Second)), want) {
		t.Fatalf("back: want %v", want)
	}

	// A failure first (a start that never connected): logged at once, and
	// the outage runs from it.
	args, log = o.failed(at(time.Hour))
	if want := []any{"failures", 1, "down_ms", int64(0)}; !log || !reflect.DeepEqual(args, want) {
		t.Fatalf("first failure of a new outage: %v %v, want logged with %v", args, log, want)
	}
	if _, log := o.failed(at(time.Hour + time.Second)); log {
		t.Fatal("the second failure of a new outage, a second later, was logged")
	}
	if want := []any{"failures", 2, "down_ms", int64(3_000)}; !reflect.DeepEqual(o.back(at(time.Hour+3*time.Second)), want) {
		t.Fatalf("back: want %v", want)
	}
}
