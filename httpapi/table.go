package httpapi

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// table keeps ready responses by key, for lookups that take no lock. It
// guarantees three things:
//
//   - A lookup answers only with an entry of the same key whose stamp
//     answers the request's (see table.answers); the tag it reads first
//     is only a filter.
//   - It never holds more entries than its ways, nor more bytes than its
//     budget: held, what its entries hold, is exact under the sets' locks.
//   - A key's entry that can never answer again (outdated) is the one a
//     new entry of that key replaces, not a neighbour.
//
// Three tables are one: the details' and the trends' (details.go), keyed
// by slug and kept current by a slugGate, and the answers' (answers.go),
// keyed by raw query, whose entries answer their own snapshot alone.
//
// A key hashes to a slot, and a slot to two sets of setWays entries each
// (choices): a new entry goes to the one with more free ways, a lookup
// reads the first and then the second. Within a set the entries are kept
// newest first, and a new one pushes out the oldest. An entry holds its
// response and nothing else: not the flag, which a later load may
// replace, and which may share the memory it was carved from with many
// others.
type table struct {
	ways    []way // setWays per set, the newest first
	sets    uint64
	maxBody int
	seed    maphash.Seed
	// spread is the slots a key's entries spread over (slotFor): one for
	// a detail, trendSpread for the trends of a slug's days.
	spread int
	// gate keeps the entries of a slug-keyed table current (nil in the
	// answers' table, whose stamps name their snapshot).
	gate *slugGate
	// inserts holds a set's lock while it changes (a lookup takes none):
	// held, the bytes the entries hold, is then exact.
	inserts []sync.Mutex
	budget  int64
	held    atomic.Int64
	// hits, which every hit writes, on a cache line of its own: sharing
	// one with what every lookup reads would make the cores take turns.
	_    [64]byte
	hits atomic.Uint64 // lookups it answered; a miss is the response cache's lookup
	_    [56]byte
	// misses are the lookups it did not answer, for the metrics.
	misses atomic.Uint64
	_      [56]byte
}

// way is one entry's place in a set, with the entry's slot as its tag
// (tagOf) beside it: a lookup passes the ways of other slots without
// reading their entries, each a cache miss under load. The tag is only a
// filter: a lookup whose tag matches checks the entry itself, so a tag
// and an entry stored a moment apart can cost a miss, never a wrong
// answer.
type way struct {
	tag atomic.Uint32
	e   atomic.Pointer[tableEntry]
}

// tagOf is the tag of slot's entries; 0 is an empty way's.
func tagOf(slot int) uint32 { return uint32(slot) + 1 }

// tagOfEntry is the tag of e's way, 0 for none.
func tagOfEntry(e *tableEntry) uint32 {
	if e == nil {
		return 0
	}
	return tagOf(e.slot)
}

// tableEntry is one response a table keeps.
type tableEntry struct {
	stamp stamp // what the response was made from
	// key is the request that asked for it: the slug, or the answers'
	// raw query.
	key  string
	slot int
	cost int64 // entryCost of the body, and the key's bytes
	r    *response
}

// stamp is what a table's response was made from, and which of its key's
// answers it is. Each table sets the fields it uses; the others stay 0.
type stamp struct {
	// serial is the snapshot's (memstore.Snapshot.Serial): every table's.
	serial uint64
	// history is the trend history's version (memstore.Trends.Version),
	// days the days of it a trend shows and today the last of them
	// (memstore.DayOf): the trends' table's.
	history uint64
	days    int32
	today   int32
	// route is the answers' table's route (routeSearch), text the search
	// index's version its answer was made with, and view, in an entry
	// (nil in a lookup's stamp), the search view that says which
	// snapshots the answer holds for: then serial is the view's first.
	route int
	text  uint64
	view  *searchView
}

// answers reports whether an entry of stamp e answers a request of stamp
// st: the same answer, made from st's snapshot or, in a slug-keyed
// table, one before it (the entry is still in the table, so its flag has
// not changed since), or, in the answers' table, from a search view that
// serves st's snapshot.
func (t *table) answers(e, st stamp) bool {
	if e.history != st.history || e.days != st.days || e.today != st.today || e.route != st.route {
		return false
	}
	if t.gate != nil {
		return e.serial <= st.serial
	}
	if e.view != nil {
		return e.text == st.text && e.view.serves(st.serial)
	}
	return e.serial == st.serial
}

// outdated reports whether an entry of stamp e, for the same key as one
// of stamp st, can never answer again once st's is kept: in a slug-keyed
// table, one made from an older history or for an older day; in the
// answers' table, one of an older search index or view, or a view that a
// swap has touched.
func (t *table) outdated(e, st stamp) bool {
	if t.gate == nil {
		return e.text < st.text || e.text == st.text && e.serial < st.serial || e.view != nil && e.view.dead.Load()
	}
	return e.history < st.history || e.today < st.today
}

// entryCost is what the table's bound counts an entry of a body of n
// bytes at: the body and its gzip form at its largest (gzip makes JSON
// smaller, and a body under minGzip has none), the entry and the
// response's own fields.
func entryCost(n int) int64 { return 2*int64(n) + 256 }

// setWays is the entries of a set: four, with the choice of two sets a
// slot (choices), make it rare that more keys asked for at once fall in
// a slot's two sets than they hold, with fewer entries in all than keys
// asked for at once.
const setWays = 4

// newTable makes a table of at most maxBytes keeping bodies of maxBody,
// with as many entries as fit in maxBytes at perEntry each; none (nil)
// for maxBytes 0. Without a gate (see slugGate.add), an entry answers
// its own snapshot alone.
func newTable(maxBytes int64, maxBody int, perEntry int64) *table {
	if maxBytes <= 0 {
		return nil
	}
	sets := max(maxBytes/perEntry/setWays, 1)
	// A table of less than one set still holds a set's entries at perEntry.
	return &table{ways: make([]way, setWays*sets), sets: uint64(sets), maxBody: maxBody,
		seed: maphash.MakeSeed(), spread: 1, inserts: make([]sync.Mutex, sets), budget: max(maxBytes, setWays*perEntry)}
}

// slotOf is key's slot: 31 bits of its hash.
func (t *table) slotOf(key string) int { return int(maphash.String(t.seed, key) >> 33) }

// slotFor is the slot of key's entries of kind n (a trend's days): one of
// the spread slots from key's.
func (t *table) slotFor(key string, n int) int { return t.slotOf(key) + n%t.spread }

// choices are the sets an entry of slot may be in, the first n of sets
// (two, or one when both hashes name the same set): the slot spread over
// 32 bits by two multiplications, each scaled to the sets by a
// multiplication, not a division. With one set a slot, the sets that
// more slots fall in than they have ways (one in seventy with a third of
// the entries asked for) lost an answer on every request to them, as
// many as one in twenty; with the choice of two, almost none.
func (t *table) choices(slot int) (sets [2]uint64, n int) {
	h1 := uint64(uint32(slot) * 0x9E3779B1)
	h2 := uint64(uint32(slot) * 0x85EBCA77) // consecutive slots (a slug's trends) far apart in both
	sets = [2]uint64{h1 * t.sets >> 32, h2 * t.sets >> 32}
	if sets[0] == sets[1] {
		return sets, 1
	}
	return sets, 2
}

// setAt is set i and its lock.
func (t *table) setAt(i uint64) ([]way, *sync.Mutex) {
	return t.ways[i*setWays:][:setWays], &t.inserts[i]
}

// found returns the response of key's entry of slot, in either of its
// sets, that answers st, counting the hit; nil when there is none.
func (t *table) found(slot int, key string, st stamp) *response {
	tag := tagOf(slot)
	sets, n := t.choices(slot)
	for _, s := range sets[:n] {
		set, _ := t.setAt(s)
		for i := range set {
			if set[i].tag.Load() != tag {
				continue
			}
			if e := set[i].e.Load(); e != nil && e.key == key && t.answers(e.stamp, st) {
				t.hits.Add(1)
				return e.r
			}
		}
	}
	t.misses.Add(1)
	return nil
}

// lookups are the lookups the table answered, and all it was asked for
// but did not pass on to the response cache (which counts those): the
// same number.
func (t *table) lookups() (found, all uint64) {
	if t == nil {
		return 0, 0
	}
	n := t.hits.Load()
	return n, n
}
