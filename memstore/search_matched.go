package memstore

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Matched is the part of a search that the texts alone decide: the flags
// whose texts match every word of the query in the languages searched,
// each with its rank, found by one run of the index (Snapshot.Match). A
// vote changes no text, so what a Matched holds is what a run of the same
// query would find in every snapshot that has the same search index
// (Snapshot.SearchVersion): Page then does, against any such snapshot,
// what the counts decide (the dominant filter, the tie-break by total,
// the page) and what the category and region filters decide.
type Matched struct {
	// version is the search index's it was found in (SearchVersion): a
	// number, not the index, which a Matched kept after the index was
	// replaced would keep alive.
	version uint64
	plans   []plan
	lang    FindOptions // the language searched, and nothing else
	// hits are the matched flags, rank desc then slot asc, each its slot
	// with, from bit hitLangShift, the languages it matched in; groups
	// cut them into runs of one rank.
	hits   []uint32
	groups []rankGroup
	// bits has bit i set for slot i where many flags matched, else
	// bySlot lists their slots ascending: for Touches, in the lesser
	// memory.
	bits   []uint64
	bySlot []int32
	// Work is the work of the run (see SearchResult.Work), its filters
	// and ranking not included: Page counts those.
	Work int
	// stemmed and typos are SearchResult's, for Find.
	stemmed, typos uint16

	// matches keeps the matched words of up to matchesKept flags, found
	// by the first Page that shows them.
	mu      sync.Mutex
	matches map[int32][NumLangs][]Match
}

// rankGroup is a run of Matched.hits of one rank, ending before end.
type rankGroup struct {
	end  int32
	rank float64
}

// hitLangShift is where a hit's languages begin: slots stay below 2^28.
const (
	hitLangShift = 28
	hitSlotMask  = 1<<hitLangShift - 1
)

// matchesKept is the most flags a Matched keeps the matched words of:
// two pages of the largest size.
const matchesKept = 2 * MaxSearchLimit

// searchVersions numbers the search indexes a process makes (see
// SearchVersion).
var searchVersions atomic.Uint64

// SearchVersion names the snapshot's search index: two snapshots with the
// same version have the same index, hence the same texts in every slot,
// and a Matched of one is the other's. A build whose load changed no text
// (votes, a status of a flag not served either way) keeps its
// predecessor's; 0 for a snapshot without an index.
func (s *Snapshot) SearchVersion() uint64 {
	if s.search == nil {
		return 0
	}
	return s.search.version
}

// Version is the version of the search index m was found in
// (Snapshot.SearchVersion).
func (m *Matched) Version() uint64 { return m.version }

// Len is the number of flags that matched.
func (m *Matched) Len() int { return len(m.hits) }

// Bytes is about the memory m holds: its slices and the matched words it
// keeps so far.
func (m *Matched) Bytes() int64 {
	m.mu.Lock()
	kept := len(m.matches)
	m.mu.Unlock()
	return int64(4*len(m.hits)+16*len(m.groups)+8*len(m.bits)+4*len(m.bySlot)+512*len(m.plans)+160*kept) + 256
}

// Touches reports whether one of slots holds a flag m matched: a snapshot
// whose changes against another touch none of m's flags pages m the same
// way as the other.
func (m *Matched) Touches(slots []int32) bool {
	for _, i := range slots {
		if m.bits != nil {
			if int(i>>6) < len(m.bits) && m.bits[i>>6]&(1<<(i&63)) != 0 {
				return true
			}
		} else if _, ok := slices.BinarySearch(m.bySlot, i); ok {
			return true
		}
	}
	return false
}

// Match runs q against the index in the language o names (o's other
// fields play no part) and returns the flags that match every word, each
// with its rank: what Find finds before it filters and pages. A query
// whose work would pass SearchBudget is refused with a *QueryError; the
// Matched returned with it says the work done.
func (s *Snapshot) Match(q Query, o FindOptions) (*Matched, error) {
	m := &Matched{version: s.SearchVersion(), lang: FindOptions{Lang: o.Lang, HasLang: o.HasLang}}
	ix := s.search
	if len(q.words) == 0 || ix == nil || ix.n == 0 {
		return m, nil
	}
	var res SearchResult
	budget := SearchBudget(ix.n)
	plans := ix.plan(q, &m.lang)
	ix.forgive(plans, &m.lang, budget, &res)
	m.Work, m.stemmed, m.typos = res.Work, res.stemmed, res.typos
	for i := range plans {
		if plans[i].postings == 0 {
			return m, nil // a word no flag has: nothing matches
		}
	}
	sc := ix.scratch.Get().(*searchScratch)
	defer ix.scratch.Put(sc)
	if len(sc.st) < ix.slots {
		sc.st = slices.Grow(sc.st, ix.slots-len(sc.st))[:ix.slots] // zero marks: no stamp is 0
	}
	alive, err := s.rounds(sc, plans, budget, &res)
	m.Work = res.Work
	if err != nil || len(alive) == 0 {
		return m, err
	}
	m.plans = plans
	m.fill(s, sc, alive)
	return m, nil
}

// fill sets m's hits, their groups of one rank and the slots for
// Touches from the flags that matched.
func (m *Matched) fill(s *Snapshot, sc *searchScratch, alive []int32) {
	type hit struct {
		rank float64
		h    uint32
	}
	hits := make([]hit, len(alive))
	for i, f := range alive {
		var langs uint32
		for l := range int(NumLangs) {
			if sc.st[f].cnt>>(8*l)&0xff > 0 {
				langs |= 1 << l
			}
		}
		hits[i] = hit{s.rank(&sc.st[f], f), uint32(f) | langs<<hitLangShift}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.rank != b.rank {
			return cmp.Compare(b.rank, a.rank)
		}
		return cmp.Compare(a.h&hitSlotMask, b.h&hitSlotMask)
	})
	m.hits = make([]uint32, len(hits))
	for i, h := range hits {
		m.hits[i] = h.h
		if i+1 == len(hits) || hits[i+1].rank != h.rank {
			m.groups = append(m.groups, rankGroup{int32(i + 1), h.rank})
		}
	}
	if 32*len(alive) > s.flags.len() {
		m.bits = make([]uint64, (s.flags.len()+63)/64)
		for _, f := range alive {
			m.bits[f>>6] |= 1 << (f & 63)
		}
		return
	}
	m.bySlot = slices.Clone(alive)
	slices.Sort(m.bySlot)
}

// slot is the slot of m's k-th hit.
func (m *Matched) slot(k int32) int32 { return int32(m.hits[k] & hitSlotMask) }

// Page is the page of o (its filters, offset and limit; its language is
// m's) of what m matched, in s, which must have the index m was found in
// (the same SearchVersion): the flags that pass the filters, ordered by
// rank desc, total desc, id asc, with their matched words, and how many
// passed. It reads the counts of s, so it is what Find would answer in s.
func (m *Matched) Page(s *Snapshot, o FindOptions) SearchResult {
	var res SearchResult
	if len(m.hits) == 0 || o.Limit < 1 || o.Offset < 0 {
		return res
	}
	if s.SearchVersion() != m.version {
		panic("memstore: Matched.Page with a snapshot of another search index")
	}
	filtered := o.HasCategory || o.HasRegion || o.HasDominant
	if filtered {
		res.Work += len(m.hits)
	}
	need := o.Offset + o.Limit
	var kept []int32 // a group's places in m that pass the filters
	from := int32(0)
	for _, g := range m.groups {
		kept = kept[:0]
		for k := from; k < g.end; k++ {
			if !filtered || o.keeps(s.flags.at(m.slot(k))) {
				kept = append(kept, k)
			}
		}
		from = g.end
		if res.Total < need && res.Total+len(kept) > o.Offset {
			for _, k := range m.byTie(s, kept, need-res.Total)[max(0, o.Offset-res.Total):] {
				res.Hits = append(res.Hits, m.hit(s, k, g.rank))
			}
		}
		res.Total += len(kept)
		if !filtered && res.Total >= need {
			res.Total = len(m.hits)
			break
		}
	}
	res.Work += res.Total
	return res
}

// tieTableFrom is the size of a group of equal rank from which Page reads
// the tie-break from a per-snapshot table (see searchScratch.tiePos)
// rather than from each flag; a variable for the tests.
var tieTableFrom = 4096

// byTie returns the first n of places (in m, of one rank) in the order of
// ties: total desc, then id asc. It sorts places in place (Page's scratch
// of one group, read before the next).
func (m *Matched) byTie(s *Snapshot, places []int32, n int) []int32 {
	out := places
	if len(out) > tieTableFrom {
		sc := s.search.scratch.Get().(*searchScratch)
		defer s.search.scratch.Put(sc)
		pos := sc.tieTable(s)
		slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(pos[m.slot(a)], pos[m.slot(b)]) })
		return out[:min(n, len(out))]
	}
	type keyed struct {
		total int64
		id    string
		k     int32
	}
	ks := make([]keyed, len(out))
	for i, k := range out {
		f := s.flags.at(m.slot(k))
		ks[i] = keyed{f.Total(), f.ID(), k}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.total != b.total {
			return cmp.Compare(b.total, a.total)
		}
		return strings.Compare(a.id, b.id)
	})
	out = out[:min(n, len(out))]
	for i := range out {
		out[i] = ks[i].k
	}
	return out
}

// tieTable returns each flag's place in s's total desc, id asc order, by
// slot, made once per snapshot.
func (sc *searchScratch) tieTable(s *Snapshot) []int32 {
	if sc.tieSerial == s.serial && len(sc.tiePos) == s.flags.len() {
		return sc.tiePos
	}
	if len(sc.tiePos) != s.flags.len() {
		sc.tiePos = make([]int32, s.flags.len())
	}
	i := int32(0)
	for _, b := range s.orders[listAll][SortTotal][1].blocks {
		for _, f := range b {
			sc.tiePos[f] = i
			i++
		}
	}
	sc.tieSerial = s.serial
	return sc.tiePos
}

// hit is the hit of m's k-th flag in s, of rank rank, with its matched
// words.
func (m *Matched) hit(s *Snapshot, k int32, rank float64) SearchHit {
	f, langs := m.slot(k), m.hits[k]>>hitLangShift
	h := SearchHit{Flag: s.flags.at(f), Rank: rank, slot: f}
	m.mu.Lock()
	ms, ok := m.matches[f]
	m.mu.Unlock()
	if !ok {
		var mt matcher
		for l := range int(NumLangs) {
			if m.lang.searches(l) && langs&(1<<l) != 0 {
				ms[l] = mt.find(s.search, h.Flag, s.search.segOf(f), m.plans, l)
			}
		}
		m.mu.Lock()
		if m.matches == nil {
			m.matches = make(map[int32][NumLangs][]Match)
		}
		if len(m.matches) < matchesKept {
			m.matches[f] = ms
		}
		m.mu.Unlock()
	}
	h.Matches = ms
	return h
}
