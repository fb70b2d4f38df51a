package httpapi

import (
	"strings"
	"sync"
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
// by the bytes they hold (an entry counted at entryCost of its body; a
// body longer than the table's maxBody, or one that would take the table
// past its bytes, goes to the response cache, which counts its bytes). An
// entry holds its response and nothing else: not the flag, which a later
// load may replace, and which may share the memory it was carved from
// with many others.
//
// The same table keeps the short answers of /flag/{slug}/trend (newTrends),
// their stamp naming the trend history, the days and the day as well.
type details struct {
	ways    []atomic.Pointer[detailEntry] // setWays per set, the newest first
	sets    uint64
	maxBody int
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
}

type detailEntry struct {
	stamp stamp // what the response was made from
	// key is the request that asked for it, where the stamp does not name
	// it (the answers' table's raw query); empty in the details' and the
	// trends' tables.
	key  string
	slot int
	cost int64 // entryCost of the body
	r    *response
}

// stamp is what a table's response was made from: the version of the flag
// and, for a trend, of the trend history, and the trend's days and day
// (trendStamp).
type stamp [3]uint64

// trendStamp is the stamp of a trend of days days to day today, made from
// the flag of version flag and the trend history of version history.
func trendStamp(flag, history uint64, days int, today int32) stamp {
	return stamp{flag, history, uint64(uint32(days))<<32 | uint64(uint32(today))}
}

// days is a trend stamp's days, 0 for a detail's.
func (s stamp) days() uint32 { return uint32(s[2] >> 32) }

// supersedes reports whether an entry of stamp e in the same slot was
// made from older data than s: then it can never answer again.
func (s stamp) supersedes(e stamp) bool { return s[0] > e[0] || s[1] > e[1] }

// source is the stamp's versions, what the response cache checks.
func (s stamp) source() source { return source{s[0], s[1]} }

// maxDetailBody is the longest body the details' table keeps. A flag's
// detail is about 1.2 KB with texts of a usual length; with its gzip form
// (smaller than the body) and the entry, an entry holds at most
// ~2*maxDetailBody.
const maxDetailBody = 2 << 10

// maxTrendBody is the longest body the trends' table keeps: 90 days of
// history with counts in the millions (a day is ~75 bytes).
const maxTrendBody = 8 << 10

// entryCost is what the table's bound counts an entry of a body of n
// bytes at: the body and its gzip form at its largest (gzip makes JSON
// smaller, and a body under minGzip has none), the entry and the
// response's own fields.
func entryCost(n int) int64 { return 2*int64(n) + 256 }

// detailEntryCost is what the details' table counts an entry at, at its
// largest: its entries are as many as fit the bytes at that size, so the
// bytes never bind.
var detailEntryCost = entryCost(maxDetailBody)

// setWays is the entries of a set: four make it rare that more flags
// asked for at once fall in one set than it holds, with fewer entries in
// all than flags asked for at once.
const setWays = 4

// newDetails makes the details' table of at most maxBytes, at least one
// set; none (nil) for maxBytes 0.
func newDetails(maxBytes int64) *details {
	return newTable(maxBytes, maxDetailBody, detailEntryCost)
}

// newTrends makes the trends' table of at most maxBytes: entries for
// bodies of 1 KB (two weeks of history), the bytes bounding it when they
// are longer.
func newTrends(maxBytes int64) *details {
	return newTable(maxBytes, maxTrendBody, entryCost(1<<10))
}

// newTable makes a table of at most maxBytes keeping bodies of maxBody,
// with as many entries as fit in maxBytes at perEntry each.
func newTable(maxBytes int64, maxBody int, perEntry int64) *details {
	if maxBytes <= 0 {
		return nil
	}
	sets := max(maxBytes/perEntry/setWays, 1)
	// A table of less than one set still holds a set's entries at perEntry.
	return &details{ways: make([]atomic.Pointer[detailEntry], setWays*sets), sets: uint64(sets), maxBody: maxBody,
		inserts: make([]sync.Mutex, sets), budget: max(maxBytes, setWays*perEntry)}
}

// set is the set of an entry of slot with stamp st: the slot spread over
// 32 bits (consecutive slots land apart), a trend's days spread apart too
// (the trends of one flag for several days fall in several sets, not in
// the four ways of one), then scaled to the sets by a multiplication, not
// a division. A detail's stamp has no days: its set is the slot's.
func (d *details) set(slot int, st stamp) ([]atomic.Pointer[detailEntry], *sync.Mutex) {
	h := uint64(uint32(slot)*0x9E3779B1 + st.days()*0x85EBCA77)
	i := h * d.sets >> 32
	return d.ways[i*setWays:][:setWays], &d.inserts[i]
}

// get returns the response for f, the flag in slot slot. On a miss it
// asks the response cache, which keeps the bodies too long for the table,
// and renders the body when that has none. Without a table it asks the
// response cache alone.
func (d *details) get(f *memstore.Flag, slot int, c *cache) *response {
	return d.answer(slot, stamp{f.Version()}, c, func() string { return detailKey(f) }, func() []byte { return renderDetail(f) })
}

// answer returns the response of stamp st for slot: the table's entry of
// that stamp, else the response cache's under key(), else render()'s, kept
// by the table when short enough, by the response cache when longer.
func (d *details) answer(slot int, st stamp, c *cache, key func() string, render func() []byte) *response {
	if d == nil {
		r, _ := c.getFrom(key(), st.source(), func() ([]byte, error) { return render(), nil })
		return r
	}
	if r := d.lookup(slot, st, ""); r != nil {
		return r
	}
	k := key()
	if r, ok := c.lookFrom(k, st.source()); ok {
		return r
	}
	r := newResponse(render())
	if kept, ok := d.keep(slot, st, "", r); ok {
		return kept
	}
	return c.keepResponse(k, st.source(), r)
}

// lookup returns the table's response of stamp st and key for slot, nil
// when it holds none.
func (d *details) lookup(slot int, st stamp, key string) *response {
	set, _ := d.set(slot, st)
	for i := range set {
		if e := set[i].Load(); e != nil && e.stamp == st && e.key == key {
			d.hits.Add(1)
			return e.r
		}
	}
	return nil
}

// keep puts r, the response of stamp st and key for slot, in the table
// (with a copy of key, which may be part of a larger string) and returns
// the table's response of them (r, or one a request for the same answer
// put there meanwhile). It reports false, keeping nothing, when r's body
// is longer than maxBody or the table's bytes are spent.
func (d *details) keep(slot int, st stamp, key string, r *response) (*response, bool) {
	if len(r.body) > d.maxBody {
		return nil, false
	}
	set, mu := d.set(slot, st)
	mu.Lock()
	defer mu.Unlock()
	from := len(set) - 1 // the way the new entry frees: the oldest
	for i := range set {
		e := set[i].Load()
		if e == nil {
			continue
		}
		if e.stamp == st && e.key == key {
			return e.r, true // a request for the same answer made it meanwhile
		}
		if e.slot == slot && st.supersedes(e.stamp) && from == len(set)-1 {
			from = i // made from older data of the slot: it goes, not a neighbour
		}
	}
	// The set as it will be: the new entry first, then the others but the
	// one freed, newest first. While the table's bytes are short, the
	// oldest of them go too; when even the new entry alone does not fit
	// (the other sets hold the bytes), it is not kept. So entries made
	// from data no longer served leave as new ones come, whatever their
	// sizes.
	e := &detailEntry{stamp: st, slot: slot, key: strings.Clone(key), cost: entryCost(len(r.body)) + int64(len(key)), r: r}
	var next [setWays]*detailEntry
	next[0] = e
	n := 1
	delta := e.cost
	for i := range set {
		x := set[i].Load()
		switch {
		case x == nil:
		case i == from:
			delta -= x.cost
		default:
			next[n] = x
			n++
		}
	}
	for {
		h := d.held.Load()
		for n > 1 && h+delta > d.budget {
			n--
			delta -= next[n].cost
			next[n] = nil
		}
		if h+delta > d.budget {
			return nil, false // the table's bytes are spent
		}
		if d.held.CompareAndSwap(h, h+delta) {
			break
		}
	}
	// A lookup racing with the rewrite may miss an entry moving down, and
	// renders the same body again: that only costs a render.
	for i := len(set) - 1; i >= 0; i-- {
		set[i].Store(next[i])
	}
	return r, true
}

// drop takes out the entries whose stamp dead reports, under their sets'
// locks as keep takes them, giving back their bytes.
func (d *details) drop(dead func(stamp) bool) {
	for i := range d.inserts {
		d.inserts[i].Lock()
		set := d.ways[i*setWays:][:setWays]
		for j := range set {
			if e := set[j].Load(); e != nil && dead(e.stamp) {
				set[j].Store(nil)
				d.held.Add(-e.cost)
			}
		}
		d.inserts[i].Unlock()
	}
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
