package httpapi

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// details keeps the bodies of /flag/{slug} in a table keyed by the slug
// the request names, four entries to a set, each entry the serial of
// the snapshot it was made from and its response, a slug's entries in
// one of two sets (choices). A lookup is a hash of the slug, a set (two
// where the entry went to the second) and one comparison: it does not
// look the flag up, and
// reads nothing of it, where finding the flag by its slug (the lookup's
// table, the page of flags, the flag, its slug's bytes) and checking the
// entry's version against the flag's took four cache misses a request on
// the route whose body is the shortest.
//
// So the table is kept current from outside: its gate (slugGate) drops
// the entries of every flag a snapshot changes before that snapshot is
// swapped in. An entry made from a snapshot then answers every snapshot
// from that one up to the last one swapped in (by Serial); a flag a load
// changed (a vote, an edit, a new slug, a removal) misses at once and is
// made again from the new flag, and a load that leaves a flag as it was
// keeps its entry.
//
// The table is bounded twice: by its entries, fixed when it is made, and
// by the bytes they hold (an entry counted at entryCost of its body; a
// body longer than the table's maxBody, or one that would take the table
// past its bytes, goes to the response cache, which counts its bytes,
// keyed by the flag's version). An entry holds its response and nothing
// else: not the flag, which a later load may replace, and which may share
// the memory it was carved from with many others.
//
// The same table keeps the short answers of /flag/{slug}/trend (newTrends),
// their stamp naming the trend history, the days and the day as well; and
// the answers' table (see answers) is one too, keyed by raw query, its
// entries those of one snapshot, without a gate.
type details struct {
	ways    []way // setWays per set, the newest first
	sets    uint64
	maxBody int
	seed    maphash.Seed
	// spread is the sets a key's entries spread over (slotFor): one for
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
	e   atomic.Pointer[detailEntry]
}

// tagOf is the tag of slot's entries; 0 is an empty way's.
func tagOf(slot int) uint32 { return uint32(slot) + 1 }

// tagOfEntry is the tag of e's way, 0 for none.
func tagOfEntry(e *detailEntry) uint32 {
	if e == nil {
		return 0
	}
	return tagOf(e.slot)
}

type detailEntry struct {
	stamp stamp // what the response was made from
	// key is the request that asked for it: the slug, or the answers'
	// raw query.
	key  string
	slot int
	cost int64 // entryCost of the body
	r    *response
}

// stamp is what a table's response was made from: in the slug-keyed
// tables the snapshot's serial and, for a trend, the trend history's
// version and the trend's days and day (trendDay); in the answers' table
// the generation and the route.
type stamp [3]uint64

// trendDay is a trend stamp's last word: days of history to day today.
func trendDay(days int, today int32) uint64 { return uint64(uint32(days))<<32 | uint64(uint32(today)) }

// supersedes reports whether an entry of the answers' table of stamp e in
// the same slot was made from an older snapshot than s: then it can never
// answer again.
func (s stamp) supersedes(e stamp) bool { return s[0] > e[0] }

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

// setWays is the entries of a set: four, with the choice of two sets a
// slot (choices), make it rare that more flags asked for at once fall in
// a slot's two sets than they hold, with fewer entries in all than flags
// asked for at once.
const setWays = 4

// newDetails makes the details' table of at most maxBytes, at least one
// set, with a gate of its own (New puts it behind the API's); none (nil)
// for maxBytes 0.
func newDetails(maxBytes int64) *details {
	return newSlugTable(maxBytes, maxDetailBody, detailEntryCost)
}

// newTrends makes the trends' table of at most maxBytes: entries for
// bodies of 1 KB (two weeks of history), the bytes bounding it when they
// are longer. A slug's trends of several days spread over trendSpread
// sets.
func newTrends(maxBytes int64) *details {
	d := newSlugTable(maxBytes, maxTrendBody, entryCost(1<<10))
	if d != nil {
		d.spread = trendSpread
	}
	return d
}

// trendSpread is the sets a slug's trends spread over, by days: a client
// asking for one flag's trend of eight numbers of days finds them all
// kept, where one set's four ways would hold four; and a swap that
// changes the flag drops its trends from that many sets.
const trendSpread = 4

// newSlugTable is newTable with a gate of its own.
func newSlugTable(maxBytes int64, maxBody int, perEntry int64) *details {
	d := newTable(maxBytes, maxBody, perEntry)
	if d != nil {
		(&slugGate{}).add(d)
	}
	return d
}

// newTable makes a table of at most maxBytes keeping bodies of maxBody,
// with as many entries as fit in maxBytes at perEntry each.
func newTable(maxBytes int64, maxBody int, perEntry int64) *details {
	if maxBytes <= 0 {
		return nil
	}
	sets := max(maxBytes/perEntry/setWays, 1)
	// A table of less than one set still holds a set's entries at perEntry.
	return &details{ways: make([]way, setWays*sets), sets: uint64(sets), maxBody: maxBody,
		seed: maphash.MakeSeed(), spread: 1, inserts: make([]sync.Mutex, sets), budget: max(maxBytes, setWays*perEntry)}
}

// slotOf is key's slot: 31 bits of its hash.
func (d *details) slotOf(key string) int { return int(maphash.String(d.seed, key) >> 33) }

// slotFor is the slot of key's entries of kind n (a trend's days): one of
// the spread slots from key's.
func (d *details) slotFor(key string, n int) int { return d.slotOf(key) + n%d.spread }

// choices are the sets an entry of slot may be in, the first n of sets
// (two, or one when both hashes name the same set): the slot spread over
// 32 bits by two multiplications, each scaled to the sets by a
// multiplication, not a division. A
// new entry goes to the one with more free ways, a lookup reads the first
// and then the second: with one set a slot, the sets that more slots fall
// in than they have ways (one in seventy with a third of the entries
// asked for) lost an answer on every request to them, as many as one in
// twenty; with the choice of two, almost none.
func (d *details) choices(slot int) (sets [2]uint64, n int) {
	h1 := uint64(uint32(slot) * 0x9E3779B1)
	h2 := uint64(uint32(slot) * 0x85EBCA77) // consecutive slots (a slug's trends) far apart in both
	sets = [2]uint64{h1 * d.sets >> 32, h2 * d.sets >> 32}
	if sets[0] == sets[1] {
		return sets, 1
	}
	return sets, 2
}

// setAt is set i and its lock.
func (d *details) setAt(i uint64) ([]way, *sync.Mutex) {
	return d.ways[i*setWays:][:setWays], &d.inserts[i]
}

// holdsOutdated reports whether set holds an entry of key in slot that
// an entry of stamp st makes outdated (read without the set's lock: a
// choice, checked again under it).
func (d *details) holdsOutdated(set []way, slot int, key string, st stamp) bool {
	for i := range set {
		if e := set[i].e.Load(); e != nil && e.slot == slot && e.key == key && d.outdated(e.stamp, st) {
			return true
		}
	}
	return false
}

// free is the number of set's empty ways.
func free(set []way) int {
	n := 0
	for i := range set {
		if set[i].e.Load() == nil {
			n++
		}
	}
	return n
}

// find returns the slug-keyed table's response of key (in slot) that
// answers the snapshot of serial serial: made from that snapshot or one
// before, still in the table (so its flag has not changed since), with
// the rest of its stamp rest. Nil when there is none, or when that
// snapshot has not passed the gate yet.
func (d *details) find(slot int, key string, serial uint64, rest [2]uint64) *response {
	if serial > d.gate.valid.Load() {
		d.misses.Add(1)
		return nil
	}
	return d.found(slot, key, stamp{serial, rest[0], rest[1]}, false)
}

// found returns the response of key's entry of slot, in either of its
// sets, whose stamp is st or, unless exact, st but for an older serial,
// counting the hit; nil when there is none.
func (d *details) found(slot int, key string, st stamp, exact bool) *response {
	tag := tagOf(slot)
	sets, n := d.choices(slot)
	for _, s := range sets[:n] {
		set, _ := d.setAt(s)
		for i := range set {
			if set[i].tag.Load() != tag {
				continue
			}
			if e := set[i].e.Load(); e != nil && e.key == key && e.stamp[1] == st[1] && e.stamp[2] == st[2] &&
				(e.stamp[0] == st[0] || !exact && e.stamp[0] < st[0]) {
				d.hits.Add(1)
				return e.r
			}
		}
	}
	d.misses.Add(1)
	return nil
}

// detail is the answer of /flag/{slug} from s: the table's when it holds
// it, else rendered from the flag and kept. False when s serves no flag of
// that slug. d may be nil: the response cache alone keeps the answers.
func (d *details) detail(s *memstore.Snapshot, slug string, c *cache) (*response, bool) {
	slot, r := d.look(s, slug, 0, [2]uint64{})
	if r != nil {
		return r, true
	}
	f, _, ok := s.FlagBySlug(slug)
	if !ok {
		return nil, false
	}
	return d.fill(slot, slug, stamp{s.Serial()}, source{f.Version()}, c, func() string { return detailKey(f) },
		func() []byte { return renderDetail(f) }), true
}

// look returns the slot of slug's entries of kind n (a trend's days) and
// the entry there with the rest of its stamp rest that answers s (see
// find): what a request of a slug-keyed table asks first, before it looks
// the flag up. Without a table, 0 and nil.
func (d *details) look(s *memstore.Snapshot, slug string, n int, rest [2]uint64) (int, *response) {
	if d == nil {
		return 0, nil
	}
	slot := d.slotFor(slug, n)
	return slot, d.find(slot, slug, s.Serial(), rest)
}

// fill answers what find did not: the response cache's response under
// ckey() made from src (the flag's version and the history's), else
// render()'s, kept by the table under key with stamp st when it takes it
// (st's serial the snapshot's it was made from), else by the response
// cache. An answer the gate does not let into the table (see keep) is
// kept nowhere: in the response cache it would answer the next request
// for it in the table's place until its flag changed. Without a table,
// the response cache alone.
func (d *details) fill(slot int, key string, st stamp, src source, c *cache, ckey func() string, render func() []byte) *response {
	if d == nil {
		r, _ := c.getFrom(ckey(), src, func() ([]byte, error) { return render(), nil })
		return r
	}
	k := ckey()
	if r, ok := c.lookFrom(k, src); ok {
		return r
	}
	r := newResponse(render())
	if kept, ok := d.keep(slot, st, key, r); ok {
		return kept
	}
	return c.keepResponse(k, src, r)
}

// lookup returns the answers' table's response of stamp st and key for
// slot, nil when it holds none.
func (d *details) lookup(slot int, st stamp, key string) *response {
	return d.found(slot, key, st, true)
}

// same reports whether an entry of stamp e answers what one of st would:
// in a slug-keyed table, one made from the same history, days and day, of
// the same snapshot or one before (the entry is in the table, so its
// flag has not changed since); in the answers' table, the same stamp.
func (d *details) same(e, st stamp) bool {
	if d.gate == nil {
		return e == st
	}
	return e[1] == st[1] && e[2] == st[2] && e[0] <= st[0]
}

// outdated reports whether an entry of stamp e, for the same key as one
// of stamp st, can never answer again once st's is kept: in a slug-keyed
// table, one made from an older history or for an older day; in the
// answers' table, one of an older snapshot.
func (d *details) outdated(e, st stamp) bool {
	if d.gate == nil {
		return st.supersedes(e)
	}
	return e[1] < st[1] || uint32(e[2]) < uint32(st[2])
}

// keep puts r, the response of stamp st and key for slot, in the table
// (with a copy of key, which may be part of a larger string) and returns
// the table's response of them (r, or one a request for the same answer
// put there meanwhile). It reports false, keeping nothing, when r's body
// is longer than maxBody or the table's bytes are spent: the caller may
// keep r elsewhere. In a slug-keyed table, when st's snapshot is not the
// last one its gate let through, or another is passing it, it keeps
// nothing and reports r as taken: no one else is to keep it.
func (d *details) keep(slot int, st stamp, key string, r *response) (*response, bool) {
	if len(r.body) > d.maxBody {
		return nil, false
	}
	// The set that holds an outdated entry of the key (it goes, not a
	// neighbour), else the one of the two with more free ways (the first
	// when they tie); then, under its lock, the other read for the same
	// answer as this one is: a lookup reads both.
	sets, nsets := d.choices(slot)
	into, other := sets[0], sets[1]
	if nsets == 2 {
		first, _ := d.setAt(into)
		second, _ := d.setAt(other)
		if d.holdsOutdated(second, slot, key, st) || !d.holdsOutdated(first, slot, key, st) && free(second) > free(first) {
			into, other = other, into
		}
	}
	set, mu := d.setAt(into)
	mu.Lock()
	defer mu.Unlock()
	if d.gate != nil && !d.gate.admits(st[0]) {
		return r, true
	}
	if nsets == 2 {
		there, _ := d.setAt(other)
		for i := range there {
			if e := there[i].e.Load(); e != nil && e.key == key && d.same(e.stamp, st) {
				return e.r, true
			}
		}
	}
	from := len(set) - 1 // the way the new entry frees: the oldest
	for i := range set {
		e := set[i].e.Load()
		if e == nil {
			continue
		}
		if e.key == key && d.same(e.stamp, st) {
			return e.r, true // a request for the same answer made it meanwhile
		}
		if e.slot == slot && e.key == key && d.outdated(e.stamp, st) && from == len(set)-1 {
			from = i // made from older data of the key: it goes, not a neighbour
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
		x := set[i].e.Load()
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
		set[i].e.Store(next[i])
		set[i].tag.Store(tagOfEntry(next[i]))
	}
	return r, true
}

// drop takes out the entries whose stamp dead reports, under their sets'
// locks as keep takes them, giving back their bytes.
func (d *details) drop(dead func(stamp) bool) {
	for i := range d.inserts {
		d.inserts[i].Lock()
		d.dropIn(d.ways[i*setWays:][:setWays], func(e *detailEntry) bool { return dead(e.stamp) })
		d.inserts[i].Unlock()
	}
}

// dropKey takes out key's entries, from both choices of each of its
// spread slots.
func (d *details) dropKey(key string) {
	slot := d.slotOf(key)
	for i := range d.spread {
		sets, n := d.choices(slot + i)
		for _, s := range sets[:n] {
			set, mu := d.setAt(s)
			mu.Lock()
			d.dropIn(set, func(e *detailEntry) bool { return e.key == key })
			mu.Unlock()
		}
	}
}

// dropIn takes out the entries of set (whose lock is held) that dead
// reports, giving back their bytes.
func (d *details) dropIn(set []way, dead func(*detailEntry) bool) {
	for j := range set {
		if e := set[j].e.Load(); e != nil && dead(e) {
			set[j].tag.Store(0)
			set[j].e.Store(nil)
			d.held.Add(-e.cost)
		}
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
	tables         []*details
}

// maxSlugDrops is the most flags a swap drops one by one; past it, the
// tables are emptied, in time proportional to their sets.
const maxSlugDrops = 4096

// add puts t behind g.
func (g *slugGate) add(t *details) {
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
