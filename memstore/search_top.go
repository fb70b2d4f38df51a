package memstore

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Rank is how Find orders its hits, as one number: higher is more
// relevant. Each query word counts once, at its best match in the flag
// (any language searched): E words exact, P prefix, S stem, T typo
// (E+P+S+T is the number of distinct query words). C is the share of the
// flag's words the query matched: over the languages searched, the
// largest number of query words matched in one language's text divided
// by that text's number of distinct words, at most 1. Then
//
//	rank = 1331·E + 121·P + 11·S + T + C/2, rounded to 3 decimals
//
// Since a query has at most 10 words, each count is below 11 and C/2 is
// at most 0.5, so ranks compare (E, P, S, T) lexicographically, then C: a
// flag that matches every word exactly ranks above every flag with a
// forgiven match. Equal ranks are ordered by total votes desc, then id
// asc.
func (s *Snapshot) rank(st *flagState, f int32) float64 {
	share := 0.0
	for l, n := range s.search.nwords.at(f) {
		if c := st.cnt >> (8 * l) & 0xff; c > 0 {
			share = max(share, min(1, float64(c)*inverse[n]))
		}
	}
	return math.Round((float64(st.score)+share/2)*1000) / 1000
}

// inverse[n] is 1/n.
var inverse = func() (t [math.MaxUint8 + 1]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = 1 / float64(n)
	}
	return t
}()

// top returns the best limit hits of alive, rank desc, total desc, id
// asc, and their flags' positions.
func (s *Snapshot) top(sc *searchScratch, alive []int32, limit int) ([]SearchHit, []int32) {
	type cand struct {
		rank float64
		f    int32
	}
	// Ties on rank are broken by place in the total desc, id asc order;
	// reading it from each flag is a memory access per flag, so a large
	// set reads it from a per-snapshot table instead.
	if len(alive) > 4096 && (sc.tieGen != s.Gen || len(sc.tiePos) != s.flags.len()) {
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
		sc.tieGen = s.Gen
	}
	table := sc.tieGen == s.Gen && len(sc.tiePos) == s.flags.len()
	tie := func(f int32) tieKey {
		if table {
			return tieKey{hi: int64(sc.tiePos[f])}
		}
		fl := s.flags.at(f)
		return tieKey{-fl.Total(), fl.ID()}
	}
	if limit > MaxSearchLimit {
		return s.topSorted(sc, alive, limit, tie)
	}
	top := make([]cand, 0, min(limit, len(alive)))
	ties := make([]tieKey, 0, cap(top))
	for _, f := range alive {
		st := &sc.st[f]
		n := len(top)
		// The share adds at most 0.5: a score that cannot reach the last
		// kept rank needs no more.
		if n == limit && float64(st.score)+0.5 < top[n-1].rank {
			continue
		}
		rank := s.rank(st, f)
		if n == limit && rank < top[n-1].rank {
			continue
		}
		t := tie(f)
		if n == limit && rank == top[n-1].rank && t.after(ties[n-1]) {
			continue
		}
		i := n
		for i > 0 && (rank > top[i-1].rank || rank == top[i-1].rank && ties[i-1].after(t)) {
			i--
		}
		if n < limit {
			top, ties = append(top, cand{}), append(ties, tieKey{})
		}
		copy(top[i+1:], top[i:len(top)-1])
		copy(ties[i+1:], ties[i:len(ties)-1])
		top[i], ties[i] = cand{rank, f}, t
	}
	return s.hitsOf(len(top), func(i int) (float64, int32) { return top[i].rank, top[i].f })
}

// tieKey orders hits of equal rank, lower first: a flag's place in the
// total desc, id asc order (hi, with id ""), or its negated total (hi)
// then its id. Two fields, not one packed integer, so that no vote count
// overflows it.
type tieKey struct {
	hi int64
	id string
}

// compare is -1, 0 or +1 as k comes before, with or after o.
func (k tieKey) compare(o tieKey) int {
	if c := cmp.Compare(k.hi, o.hi); c != 0 {
		return c
	}
	return strings.Compare(k.id, o.id)
}

// after reports whether k comes after o.
func (k tieKey) after(o tieKey) bool { return k.compare(o) > 0 }

// topSorted is top for a deep page (an offset past the first): it sorts
// every match, n log n, where keeping the best limit in order would cost
// up to n times limit.
func (s *Snapshot) topSorted(sc *searchScratch, alive []int32, limit int, tie func(int32) tieKey) ([]SearchHit, []int32) {
	type cand struct {
		rank float64
		tie  tieKey
		f    int32
	}
	all := make([]cand, len(alive))
	for i, f := range alive {
		all[i] = cand{s.rank(&sc.st[f], f), tie(f), f}
	}
	slices.SortFunc(all, func(a, b cand) int {
		if a.rank != b.rank {
			return cmp.Compare(b.rank, a.rank)
		}
		return a.tie.compare(b.tie)
	})
	all = all[:min(limit, len(all))]
	return s.hitsOf(len(all), func(i int) (float64, int32) { return all[i].rank, all[i].f })
}

// hitsOf makes the hits of n ranked flags, the i-th of rank and flag at(i),
// and the flags' places in the snapshot.
func (s *Snapshot) hitsOf(n int, at func(i int) (float64, int32)) ([]SearchHit, []int32) {
	hits := make([]SearchHit, n)
	pos := make([]int32, n)
	for i := range n {
		rank, f := at(i)
		hits[i] = SearchHit{Flag: s.flags.at(f), Rank: rank}
		pos[i] = f
	}
	return hits, pos
}

// matches fills the Matches of hits (whose flags are at pos): per
// language searched where a word matched, the words of the text that
// match a word of the query, each at its best kind.
func (s *Snapshot) matches(sc *searchScratch, hits []SearchHit, pos []int32, plans []plan, o *FindOptions) {
	var m matcher
	for i := range hits {
		cnt := sc.st[pos[i]].cnt
		for l := range int(NumLangs) {
			if o.searches(l) && cnt>>(8*l)&0xff > 0 {
				hits[i].Matches[l] = m.find(s.search, hits[i].Flag, s.search.segOf(pos[i]), plans, l)
			}
		}
	}
}

// matcher finds the matched words of one text; its buffers are reused.
type matcher struct {
	kinds []int8 // per distinct word of the text: its best kind, -1 for none
	buf   []byte // the current word folded
	dist  []byte // the distinct words seen so far, folded, one after another
	ends  []int  // where each of them ends in dist
}

// find returns the matched words of fl's text in language l; fl is
// segment g's.
func (m *matcher) find(ix *searchIndex, fl *Flag, g int, plans []plan, l int) []Match {
	t := ix.segs()[g].words[l].trie
	ids := fl.wordsOf(l)
	m.kinds = m.kinds[:0]
	found := false
	for _, id := range ids {
		best := int8(-1)
		if v := t.vocabOf(id); v >= 0 {
			for _, p := range plans {
				if k, ok := kindOf(p.words[g][l], v); ok && (best < 0 || int8(k) < best) {
					best = int8(k)
				}
			}
		}
		found = found || best >= 0
		m.kinds = append(m.kinds, best)
	}
	stems := ix.stemsIn(fl, g, plans, l)
	if !found && stems == 0 {
		return nil
	}
	var out []Match
	m.dist, m.ends = m.dist[:0], m.ends[:0]
	eachWord(fl.Text(Lang(l)), func(start, end int, raw string) {
		m.buf = m.buf[:0]
		for _, r := range raw {
			m.buf = foldRune(m.buf, r)
		}
		k := m.distinct()
		if k >= len(m.kinds) {
			return
		}
		best := m.kinds[k]
		if stems != 0 && (best < 0 || best > int8(MatchStem)) {
			for _, p := range plans {
				if st := p.w.stems[l]; stems&(1<<p.idx) != 0 && st != "" && m.buf[0] == st[0] && stemOf(Lang(l), raw) == st {
					best = int8(MatchStem)
					break
				}
			}
		}
		if best >= 0 {
			out = append(out, Match{Start: start, End: end, Kind: MatchKind(best)})
		}
	})
	return out
}

// distinct returns the place of the folded word in buf among the text's
// distinct words, in order of first appearance, adding it if new.
func (m *matcher) distinct() int {
	from := 0
	for k, end := range m.ends {
		if string(m.dist[from:end]) == string(m.buf) {
			return k
		}
		from = end
	}
	m.dist = append(m.dist, m.buf...)
	m.ends = append(m.ends, len(m.dist))
	return len(m.ends) - 1
}

// stemsIn returns, as bits by query word, the plans whose stem in
// language l is one of fl's stems; fl is segment g's.
func (ix *searchIndex) stemsIn(fl *Flag, g int, plans []plan, l int) uint16 {
	var out uint16
	t := ix.segs()[g].stems[l].trie
	for _, id := range fl.stemsOf(l) {
		v := t.vocabOf(id)
		if v < 0 {
			continue
		}
		for _, p := range plans {
			if p.stem[g][l] == v {
				out |= 1 << p.idx
			}
		}
	}
	return out
}
