package httpapi

import (
	"github.com/flagpole/flagpole/memstore"
)

// The details' and trends' tables answer /flag/{slug} and
// /flag/{slug}/trend by the slug the request names, before the flag is
// looked up. What they guarantee: an answer from either table is the one
// the request's snapshot gives. Their gate (slugGate) drops the entries
// of every flag a snapshot changes before that snapshot is served, so an
// entry still in a table was made from its flag as it is; a flag a load
// changed (a vote, an edit, a new slug, a removal) misses at once and is
// made again, and one a load left as it was keeps its entry. An answer a
// table does not keep goes to the response cache, keyed by the flag's
// version, or nowhere (see fill).
//
// Why: a lookup is a hash of the slug, a set (two where the entry went to
// the second) and one comparison, where finding the flag by its slug (the
// lookup's table, the page of flags, the flag, its slug's bytes) and
// checking an entry's version against the flag's took four cache misses
// a request on the route whose body is the shortest.
//
// Each is a table (table.go) with a gate: a detail's stamp is the
// snapshot's serial, a trend's also the history's version, its days and
// its day.

// maxDetailBody is the longest body the details' table keeps. A flag's
// detail is about 1.2 KB with texts of a usual length; with its gzip form
// (smaller than the body) and the entry, an entry holds at most
// ~2*maxDetailBody.
const maxDetailBody = 2 << 10

// maxTrendBody is the longest body the trends' table keeps: 90 days of
// history with counts in the millions (a day is ~75 bytes).
const maxTrendBody = 8 << 10

// detailEntryCost is what the details' table counts an entry at, at its
// largest: its entries are as many as fit the bytes at that size, so the
// bytes never bind.
var detailEntryCost = entryCost(maxDetailBody)

// trendSpread is the slots a slug's trends spread over, by days: a client
// asking for one flag's trend of eight numbers of days finds them all
// kept, where one set's four ways would hold four; and a swap that
// changes the flag drops its trends from that many slots.
const trendSpread = 4

// newDetails makes the details' table of at most maxBytes, at least one
// set, with a gate of its own (New puts it behind the API's); none (nil)
// for maxBytes 0.
func newDetails(maxBytes int64) *table {
	return newSlugTable(maxBytes, maxDetailBody, detailEntryCost)
}

// newTrends makes the trends' table of at most maxBytes: entries for
// bodies of 1 KB (two weeks of history), the bytes bounding it when they
// are longer. A slug's trends of several days spread over trendSpread
// slots.
func newTrends(maxBytes int64) *table {
	t := newSlugTable(maxBytes, maxTrendBody, entryCost(1<<10))
	if t != nil {
		t.spread = trendSpread
	}
	return t
}

// newSlugTable is newTable with a gate of its own.
func newSlugTable(maxBytes int64, maxBody int, perEntry int64) *table {
	t := newTable(maxBytes, maxBody, perEntry)
	if t != nil {
		(&slugGate{}).add(t)
	}
	return t
}

// trendStamp is the stamp of a trend of days days to today, made from the
// snapshot of serial serial and the trend history of version history.
func trendStamp(serial, history uint64, days int, today int32) stamp {
	return stamp{serial: serial, history: history, days: int32(days), today: today}
}

// detail is the answer of /flag/{slug} from s: the table's when it holds
// it, else rendered from the flag and kept. False when s serves no flag of
// that slug. t may be nil: the response cache alone keeps the answers.
func (t *table) detail(s *memstore.Snapshot, slug string, c *cache) (*response, bool) {
	st := stamp{serial: s.Serial()}
	slot, r := t.look(slug, 0, st)
	if r != nil {
		return r, true
	}
	f, _, ok := s.FlagBySlug(slug)
	if !ok {
		return nil, false
	}
	return t.fill(slot, slug, st, source{f.Version()}, c, func() string { return detailKey(f) },
		func() []byte { return renderDetail(f) }), true
}

// detailKey is the response cache's key of f's detail.
func detailKey(f *memstore.Flag) string { return "flag\x00" + f.ID() }

// look returns the slot of slug's entries of kind n (a trend's days) and
// the entry there that answers st (see find): what a request of a
// slug-keyed table asks first, before it looks the flag up. Without a
// table, 0 and nil.
func (t *table) look(slug string, n int, st stamp) (int, *response) {
	if t == nil {
		return 0, nil
	}
	slot := t.slotFor(slug, n)
	return slot, t.find(slot, slug, st)
}

// find returns the slug-keyed table's response of key (in slot) that
// answers st: made from st's snapshot or one before, still in the table
// (so its flag has not changed since), the rest of its stamp st's. Nil
// when there is none, or when that snapshot has not passed the gate yet.
func (t *table) find(slot int, key string, st stamp) *response {
	if st.serial > t.gate.valid.Load() {
		t.misses.Add(1)
		return nil
	}
	return t.found(slot, key, st)
}

// fill answers what find did not: the response cache's response under
// ckey() made from src (the flag's version and the history's), else
// render()'s, kept by the table under key with stamp st when it takes it
// (st's serial the snapshot's it was made from), else by the response
// cache. An answer the gate does not let into the table (see keep) is
// kept nowhere: in the response cache it would answer the next request
// for it in the table's place until its flag changed. Without a table,
// the response cache alone.
func (t *table) fill(slot int, key string, st stamp, src source, c *cache, ckey func() string, render func() []byte) *response {
	if t == nil {
		r, _ := c.getFrom(ckey(), src, func() ([]byte, error) { return render(), nil })
		return r
	}
	k := ckey()
	if r, ok := c.lookFrom(k, src); ok {
		return r
	}
	r := newResponse(render())
	if kept, ok := t.keep(slot, st, key, r); ok {
		return kept
	}
	return c.keepResponse(k, src, r)
}
