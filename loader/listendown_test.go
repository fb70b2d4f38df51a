package loader_test

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// TestListenerDownPollsOnSchedule: with PostgreSQL behind a proxy that is
// cut (the database unreachable; the listener's reconnects fail about once
// a second), the loads poll as documented, the flags at once and then
// every PollEvery, the keys every half of it, not once per failed
// reconnect; the listener warns once it is down, not once per attempt;
// back, it reconnects and both loads run at once; cut again, they poll at
// once again. Before: every failed attempt rang both loads and warned, so
// about one flag load, one key load and three warnings a second.
func TestListenerDownPollsOnSchedule(t *testing.T) {
	loadertest.RequirePostgres(t)
	direct, raw := loadertest.Open(t, loader.Postgres)
	seed(t, direct, loader.SeedOptions{Flags: 20, Users: 5, Days: 2, Seed: 1})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	proxy := loadertest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := loader.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	// Shorter than the default 10 s, so that the outage below holds a
	// tick of each: the keys' at 2 and 4 s, the flags' at 4 s.
	const pollEvery = 4 * time.Second
	var logs loadertest.Buffer
	var mu sync.Mutex
	loads := map[string]int{}
	count := func(job string) int {
		mu.Lock()
		defer mu.Unlock()
		return loads[job]
	}
	ld := loader.New(db, &memstore.Store{}, loader.Options{Listen: true, PollEvery: pollEvery,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		OnLoad: func(job string, _ time.Duration, _ int, _ error) {
			mu.Lock()
			loads[job]++
			mu.Unlock()
		}})
	ready, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		ld.Run(ctx, never, never, func() { close(ready) })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the loader was not ready within 30 s")
	}
	waitFor(t, "the listener is up", func() bool { return ld.Status().Listening })
	// The loads the start rang are done (hour-long schedules: nothing
	// else rings until the cut).
	waitFor(t, "the start's loads", func() bool {
		st := ld.Status()
		return count("flags") >= 2 && count("keys") >= 1 && st.FlagRings[loader.ByDatabase] >= 1
	})
	time.Sleep(300 * time.Millisecond)

	warnings := func(from int, about string) int {
		n := 0
		for _, line := range strings.Split(logs.String()[from:], "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, about) {
				n++
			}
		}
		return n
	}
	polled := func() (flags, keys int64) {
		st := ld.Status()
		return st.FlagRings[loader.ByPolling], st.KeyRings[loader.ByPolling]
	}

	// The outage: for a few seconds, in which the listener fails to
	// reconnect several times (50 ms, then doubling to 1 s apart).
	const outage = 6 * time.Second
	flags0, keys0 := polled()
	flagLoads0, keyLoads0 := count("flags"), count("keys")
	logFrom := len(logs.String())
	start := time.Now()
	proxy.Cut()
	waitFor(t, "the listener is down", func() bool { return !ld.Status().Listening })
	time.Sleep(outage - time.Since(start))
	took := time.Since(start)
	flags, keys := polled()
	flags, keys = flags-flags0, keys-keys0
	flagLoads, keyLoads := count("flags")-flagLoads0, count("keys")-keyLoads0
	listenerWarns, allWarns := warnings(logFrom, "change listener"), warnings(logFrom, "")
	t.Logf("%v down: %d flag and %d key polls rung, %d flag and %d key loads, %d warnings (%d of the listener)",
		took.Round(time.Millisecond), flags, keys, flagLoads, keyLoads, allWarns, listenerWarns)

	// One at once, then one a PollEvery (keys: a half of it), and one
	// more of each for a slow machine. The bug gave one a second. At
	// least the one at once and the ticks of the first 4 s: the polling
	// goes on while the listener stays down.
	mostFlags := 2 + int64(took/pollEvery)
	mostKeys := 2 + int64(took/(pollEvery/2))
	const leastFlags, leastKeys = 2, 3
	if flags < leastFlags || flags > mostFlags {
		t.Errorf("%v down: %d flag polls rung, want %d to %d", took.Round(time.Millisecond), flags, leastFlags, mostFlags)
	}
	if keys < leastKeys || keys > mostKeys {
		t.Errorf("%v down: %d key polls rung, want %d to %d", took.Round(time.Millisecond), keys, leastKeys, mostKeys)
	}
	if flagLoads < leastFlags || int64(flagLoads) > mostFlags {
		t.Errorf("%v down: %d flag loads, want %d to %d", took.Round(time.Millisecond), flagLoads, leastFlags, mostFlags)
	}
	if keyLoads < leastKeys || int64(keyLoads) > mostKeys {
		t.Errorf("%v down: %d key loads, want %d to %d", took.Round(time.Millisecond), keyLoads, leastKeys, mostKeys)
	}
	// The disconnection's warning, and one more at most; the rest are the
	// failed loads', one each.
	if listenerWarns < 1 || listenerWarns > 2 {
		t.Errorf("%v down: %d warnings of the listener, want 1 or 2:\n%s", took.Round(time.Millisecond), listenerWarns, logs.String()[logFrom:])
	}
	if most := 2 + int(mostFlags+mostKeys); allWarns > most {
		t.Errorf("%v down: %d warnings, want at most %d:\n%s", took.Round(time.Millisecond), allWarns, most, logs.String()[logFrom:])
	}

	// Back: the listener reconnects and both loads run at once, and
	// succeed.
	st := ld.Status()
	back := time.Now()
	proxy.Restore()
	waitFor(t, "the listener reconnects", func() bool {
		s := ld.Status()
		return s.Listening && s.ListenReconnects > st.ListenReconnects
	})
	waitFor(t, "both loads run on the reconnection", func() bool {
		s := ld.Status()
		return s.FlagRings[loader.ByDatabase] > st.FlagRings[loader.ByDatabase] &&
			s.KeyRings[loader.ByDatabase] > st.KeyRings[loader.ByDatabase] &&
			s.LastSuccess.After(back) && s.KeyLastError == ""
	})
	if !strings.Contains(logs.String()[logFrom:], "change listener reconnected") {
		t.Errorf("no log of the reconnection:\n%s", logs.String()[logFrom:])
	}

	// Cut again: once more the loads poll at once (not at the next tick,
	// 2 and 4 s away at the earliest).
	flags0, keys0 = polled()
	again := time.Now()
	proxy.Cut()
	for {
		if f, k := polled(); f > flags0 && k > keys0 {
			break
		}
		if time.Since(again) > 1500*time.Millisecond {
			t.Fatalf("cut again: no poll of both loads within 1.5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
