package micro_test

import (
	"crypto/sha256"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

// BenchmarkHTTPSearchUnderVotes is BenchmarkHTTPSearch while snapshots
// of votes alone are swapped in, 30 a second (what 200 votes a second
// make the loader swap on PostgreSQL), each 7 votes on random flags built
// on the side as the loader builds them: what a search costs while people
// vote, against "quiet", the same without swaps. The builds' CPU counts
// in the time a request. It uses only the packages' exported API, so the
// file runs as it is against an older commit.
func BenchmarkHTTPSearchUnderVotes(b *testing.B) {
	for _, every := range []time.Duration{0, time.Second / 30} {
		name := "quiet"
		if every > 0 {
			name = "30swaps"
		}
		b.Run(name, func(b *testing.B) {
			h, stop := votingAPI(b, every)
			defer stop()
			serveAll(b, h, searchPaths(b), nil)
		})
	}
}

// votingAPI is api over a store into which a goroutine swaps a snapshot
// of 7 votes every every (none for 0) until stop is called.
func votingAPI(b *testing.B, every time.Duration) (http.Handler, func()) {
	d := data(b)
	st := &memstore.Store{}
	st.SetSnapshot(d.snap)
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))},
		[]memstore.Key{{ID: "bench", Limit: 1 << 30}}, time.Now()))
	a, err := httpapi.New(httpapi.Options{Store: st, CacheBytes: 64 << 20,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.Close)
	done := make(chan struct{})
	var wg sync.WaitGroup
	if every > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			voteSwaps(b, d, st, every, done)
		}()
	}
	return a.Handler(), func() { close(done); wg.Wait() }
}

// voteSwaps swaps a snapshot of 7 votes into st every every until done.
func voteSwaps(b *testing.B, d *dataset, st *memstore.Store, every time.Duration, done chan struct{}) {
	rng := rand.New(rand.NewPCG(50, 30))
	votes := map[int]int64{}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		var ch []memstore.FlagInput
		for range 7 {
			i := rng.IntN(len(d.inputs))
			votes[i]++
			in := d.inputs[i]
			in.Red += votes[i]
			in.UpdatedAt = in.UpdatedAt.Add(time.Duration(votes[i]) * time.Millisecond)
			ch = append(ch, in)
		}
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: ch, LoadedAt: time.Now()})
		if err != nil {
			b.Error(err)
			return
		}
		st.SetSnapshot(next)
	}
}
