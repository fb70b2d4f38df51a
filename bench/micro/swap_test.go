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
// changed flags: the store's swap encodes the flags the new snapshot
// brings (the others keep their encodings).
func BenchmarkSwapTick100k(b *testing.B) {
	d := data(b)
	st := &memstore.Store{}
	st.SetSnapshot(d.snap)
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))}, []memstore.Key{{ID: "bench"}}, time.Now()))
	a, err := httpapi.New(httpapi.Options{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	changed := tickChange(d, "votes")
	snap := d.snap
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i := range changed {
			changed[i].Green++
		}
		next, err := memstore.Build(snap, memstore.Change{Flags: changed, LoadedAt: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		snap = next
		b.StartTimer()
		st.SetSnapshot(snap) // encodes the 100 flags the tick brings
	}
}
