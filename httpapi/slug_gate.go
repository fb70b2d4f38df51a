package httpapi

import (
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// slugGate keeps the slug-keyed tables current. Before a snapshot is
// swapped in (memstore.Store.OnSwap), swap takes out of its tables the
// entries of every slug that snapshot changes against the one it was
// built from: the slugs of the flags it does not share with it
// (memstore.Snapshot.Fresh: new votes, edits, new flags and new slugs)
// and of those it no longer serves (Changes().Removed: removed flags and
// old slugs). When that one is the snapshot the gate passed last, an
// entry left in a table is still the answer the new snapshot gives.
//
// Two serials (memstore.Snapshot.Serial) tell the tables what they may
// do. valid is the last snapshot's passed: an entry answers a snapshot of
// serial n when it was made from n or before, and n <= valid (a request
// may still hold an older snapshot than valid's; none holds a newer one,
// as the gate passes a snapshot before it is swapped in). pending is the
// snapshot's being passed: set before the drops, equal to valid after
// them. An entry made from snapshot n is kept only when pending and valid
// are both n, checked under its set's lock: a request that made its
// answer from an older snapshot, or while a swap drops entries, keeps
// none, and a drop that follows a keep under the same lock takes the
// entry out, so no entry of a flag's old data outlives the swap that
// changed it.
//
// A snapshot not built from the last one passed (the first; one of
// another lineage given to the store), or one that changes more than
// maxSlugDrops flags (a full load, a renewed lexicon), empties the tables
// instead.
type slugGate struct {
	pending, valid atomic.Uint64
	mu             sync.Mutex // one swap at a time
	last           uint64     // the serial of the last snapshot passed, under mu
	tables         []*table
}

// maxSlugDrops is the most flags a swap drops one by one; past it, the
// tables are emptied, in time proportional to their sets.
const maxSlugDrops = 4096

// add puts t behind g.
func (g *slugGate) add(t *table) {
	if t != nil {
		t.gate = g
		g.tables = append(g.tables, t)
	}
}

// admits reports whether an entry made from the snapshot of serial n may
// be kept. The caller holds the lock of the set it goes into.
func (g *slugGate) admits(n uint64) bool { return g.pending.Load() == n && g.valid.Load() == n }

// swap readies the tables for s, which is about to be swapped in.
func (g *slugGate) swap(s *memstore.Snapshot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pass(s)
}

// start readies the tables for s, the snapshot a store serves when the
// gate is put before it, unless a swap passed a newer one meanwhile.
func (g *slugGate) start(s *memstore.Snapshot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s != nil && s.Serial() > g.last {
		g.pass(s)
	}
}

// pass drops what s changes and lets it through. The caller holds mu.
func (g *slugGate) pass(s *memstore.Snapshot) {
	g.pending.Store(s.Serial())
	var slugs []string
	all := s.Base() != g.last || g.last == 0
	if !all {
		for f := range s.Fresh() {
			if all = len(slugs) == maxSlugDrops; all {
				break
			}
			slugs = append(slugs, f.Slug())
		}
	}
	if removed := s.Changes().Removed; !all {
		if all = len(slugs)+len(removed) > maxSlugDrops; !all {
			for _, f := range removed {
				slugs = append(slugs, f.Slug())
			}
		}
	}
	for _, t := range g.tables {
		if all {
			t.drop(func(stamp) bool { return true })
			continue
		}
		for _, slug := range slugs {
			t.dropKey(slug)
		}
	}
	g.last = s.Serial()
	g.valid.Store(s.Serial())
}
