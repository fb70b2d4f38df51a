package memstore

import "math"

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
