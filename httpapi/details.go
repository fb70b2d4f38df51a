package httpapi

import (
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// details keeps the bodies of /flag/{slug} in a table indexed by the
// flag's slot in the snapshot, four entries to a set of slots, each entry
// the version of the flag it was made from (memstore.Flag.Version) and its
// response. An entry answers only that version: flags are immutable, and
// a load that changes one makes a new one, so a vote or an edit is seen
// at once, and a load that leaves the flag as it was keeps its entry. A
// lookup is one load and one comparison, where the response cache hashes
// a string key built for the request and records the access for its
// admission policy: on the route whose body is the shortest, that was the
// handler's largest cost after finding the flag.
//
// The table is bounded twice: by its entries, fixed when it is made, and
// by the size of a body it keeps (maxDetailBody; a longer one goes to the
// response cache, which counts its bytes). An entry holds its response
// and nothing else: not the flag, which a later load may replace, and
// which may share the memory it was carved from with many others.
type details struct {
	ways []atomic.Pointer[detailEntry] // setWays per set, the newest first
	sets uint64
	// hits, which every hit writes, on a cache line of its own: sharing
	// one with what every lookup reads would make the cores take turns.
	_    [64]byte
	hits atomic.Uint64 // lookups it answered; a miss is the response cache's lookup
	_    [56]byte
}

type detailEntry struct {
	version uint64 // of the flag the response was made from
	slot    int
	r       *response
}

// maxDetailBody is the longest body the table keeps. A flag's detail is
// about 1.2 KB with texts of a usual length; with its gzip form (smaller
// than the body) and the entry, an entry holds at most ~2*maxDetailBody.
const maxDetailBody = 2 << 10

// detailEntryCost is what the table's bound counts an entry at: the body
// and its gzip form at their largest, the entry and the response's own
// fields.
const detailEntryCost = 2*maxDetailBody + 256

// setWays is the entries of a set: four make it rare that more flags
// asked for at once fall in one set than it holds, with fewer entries in
// all than flags asked for at once.
const setWays = 4

// newDetails makes a table of at most maxBytes, at least one set; none
// (nil) for maxBytes 0.
func newDetails(maxBytes int64) *details {
	if maxBytes <= 0 {
		return nil
	}
	sets := max(maxBytes/detailEntryCost/setWays, 1)
	return &details{ways: make([]atomic.Pointer[detailEntry], setWays*sets), sets: uint64(sets)}
}

// set is the set of slot: the slot spread over 32 bits (consecutive slots
// land apart), then scaled to the sets by a multiplication, not a
// division.
func (d *details) set(slot int) []atomic.Pointer[detailEntry] {
	h := uint64(uint32(slot) * 0x9E3779B1)
	i := h * d.sets >> 32
	return d.ways[i*setWays:][:setWays]
}

// get returns the response for f, the flag in slot slot. On a miss it
// asks the response cache, which keeps the bodies too long for the table,
// and renders the body when that has none. Without a table it asks the
// response cache alone.
func (d *details) get(f *memstore.Flag, slot int, c *cache) *response {
	if d == nil {
		r, _ := c.getFrom(detailKey(f), source{f.Version()}, func() ([]byte, error) { return renderDetail(f), nil })
		return r
	}
	v := f.Version()
	set := d.set(slot)
	from := len(set) - 1 // the way the new entry frees: the oldest
	for i := range set {
		e := set[i].Load()
		if e == nil {
			continue
		}
		if e.version == v {
			d.hits.Add(1)
			return e.r
		}
		if e.slot == slot && e.version < v && from == len(set)-1 {
			from = i // an older version of the flag: it goes, not a neighbour
		}
	}
	key := detailKey(f)
	if r, ok := c.lookFrom(key, source{v}); ok {
		return r
	}
	body := renderDetail(f)
	if len(body) > maxDetailBody {
		return c.keepFrom(key, source{v}, body)
	}
	r := newResponse(body)
	for i := range set {
		if e := set[i].Load(); e != nil && e.version == v {
			return e.r // a request for the same flag made it meanwhile
		}
	}
	// The new entry goes first, the others down a way up to the one freed.
	// An insert racing with this one in the same set may leave an entry in
	// two ways and drop another; a lookup racing with either misses at
	// worst, and renders the same body again. Both only cost a render.
	for i := from; i > 0; i-- {
		set[i].Store(set[i-1].Load())
	}
	set[0].Store(&detailEntry{version: v, slot: slot, r: r})
	return r
}

// detailKey is the response cache's key of f's detail.
func detailKey(f *memstore.Flag) string { return "flag\x00" + f.ID() }

// lookups are the lookups the table answered, and all it was asked for
// but did not pass on to the response cache (which counts those): the
// same number.
func (d *details) lookups() (found, all uint64) {
	if d == nil {
		return 0, 0
	}
	n := d.hits.Load()
	return n, n
}
