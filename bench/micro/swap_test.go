package micro_test

import (
	"crypto/sha256"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

// BenchmarkSwapTick100k is what the HTTP layer adds to a tick of 100
// changed flags: the store's swap renders the new snapshot's view, which
// shares the encodings of the flags it shares with the current one (here
// 100 or 200 flags differ).
func BenchmarkSwapTick100k(b *testing.B) {
	d := data(b)
	changed := make([]memstore.FlagInput, 100)
	for i := range changed {
		changed[i] = d.inputs[i*997%len(d.inputs)]
		changed[i].Red++
		changed[i].UpdatedAt = changed[i].UpdatedAt.Add(time.Second)
	}
	tick, err := memstore.Build(d.snap, memstore.Change{Flags: changed, LoadedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	for i := range changed {
		changed[i].Green++
	}
	tick2, err := memstore.Build(tick, memstore.Change{Flags: changed, LoadedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	st := &memstore.Store{}
	st.SetSnapshot(d.snap)
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))}, []memstore.Key{{ID: "bench"}}, time.Now()))
	a, err := httpapi.New(httpapi.Options{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	// The HTTP layer keeps two views: a cycle of three renders every time.
	snaps := [3]*memstore.Snapshot{tick, tick2, d.snap}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		st.SetSnapshot(snaps[i%3]) // renders from the current view
		i++
	}
}
