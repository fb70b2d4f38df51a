package memstore

import (
	"math"
	"slices"
)

// The weights of the kinds of match in a flag's score: each query word
// adds the weight of its best match. With at most MaxQueryWords (10)
// words, each count is below 11, so the sum orders flags by their number
// of exact matches, then prefix, then stem, then typo.
var kindWeight = [numKinds]uint16{MatchExact: 1331, MatchPrefix: 121, MatchStem: 11, MatchTypo: 1}

// rounds intersects the words of plans, cheapest first, and returns the
// flags that match them all with their scores in sc.
func (s *Snapshot) rounds(sc *searchScratch, plans []plan, budget int, res *SearchResult) ([]int32, error) {
	ix := s.search
	slices.SortStableFunc(plans, func(a, b plan) int { return a.postings + a.sourceWords - b.postings - b.sourceWords })
	if sc.stamp > math.MaxUint32-2*MaxQueryWords {
		for i := range sc.st {
			sc.st[i].mark = 0
		}
		sc.stamp = 0
	}
	base := sc.stamp
	sc.stamp += MaxQueryWords + 1
	alive, next := sc.alive[:0], sc.next[:0]
	defer func() { sc.alive, sc.next = alive[:0], next[:0] }()
	for r := range plans {
		p := &plans[r]
		stamp := base + uint32(r) + 1
		verify := len(alive) * ix.checkCost(p)
		readCost := p.postings + p.sourceWords
		// The matches left are ranked at the end: at most the postings
		// read in round 0, at most the candidates after it.
		rank := len(alive)
		if r == 0 {
			rank = p.postings
		}
		if r == 0 || readCost <= verify {
			if res.Work+readCost+rank > budget {
				return nil, errTooBroad()
			}
			res.Work += readCost
			alive, next = ix.unionRound(sc, p, r, stamp, alive, next)
		} else {
			if res.Work+verify+rank > budget {
				return nil, errTooBroad()
			}
			res.Work += verify
			alive, next = s.verifyRound(sc, p, stamp, alive, next)
		}
		if len(alive) == 0 {
			return nil, nil
		}
	}
	return alive, nil
}

// checkCost is what checking one candidate's words against p costs.
func (ix *searchIndex) checkCost(p *plan) int {
	c := 4                            // reaching the flag
	for l, srcs := range p.words[0] { // as the base: most flags are its
		if len(srcs) > 0 {
			c += ix.perFlag[l] * lookups(len(srcs))
		}
		if p.stem[0][l] >= 0 {
			c += ix.perFlag[l]
		}
	}
	return c
}

// noteMatch records that flag f has a match of weight w in language l
// for the word of round r.
func (sc *searchScratch) noteMatch(f int32, r int, stamp uint32, w uint16, l int, alive []int32) []int32 {
	st := &sc.st[f]
	switch {
	case st.mark == stamp:
		st.cur = max(st.cur, w)
		st.langs |= 1 << l
	case r == 0:
		alive = append(alive, f)
		*st = flagState{mark: stamp, cur: w, langs: 1 << l}
	case st.mark == stamp-1:
		st.mark, st.cur, st.langs = stamp, w, 1<<l
	}
	return alive
}

// scoreWord adds the current word's match to f's score and counts.
func (st *flagState) scoreWord() {
	st.score += st.cur
	st.cnt += spread[st.langs]
}

// spread[b] has byte l set to 1 for each bit l of b.
var spread = func() (t [1 << NumLangs]uint32) {
	for b := range t {
		for l := range NumLangs {
			if b&(1<<l) != 0 {
				t[b] |= 1 << (8 * l)
			}
		}
	}
	return t
}()

// unionRound reads the postings of p. In round 0 every flag found becomes
// a candidate; later, only candidates found again survive. The base's
// postings of dead entries are passed over.
func (ix *searchIndex) unionRound(sc *searchScratch, p *plan, r int, stamp uint32, alive, next []int32) ([]int32, []int32) {
	for g, seg := range ix.segs() {
		dead := ix.dead
		if g > 0 {
			dead = nil
		}
		for l := range seg.words {
			t := seg.words[l].trie
			for _, src := range p.words[g][l] {
				w := kindWeight[src.kind]
				for v := src.lo; v < src.hi; v++ {
					alive = sc.notePostings(t.postings(v), dead, r, stamp, w, l, alive)
				}
			}
			if v := p.stem[g][l]; v >= 0 {
				alive = sc.notePostings(seg.stems[l].postings(v), dead, r, stamp, kindWeight[MatchStem], l, alive)
			}
		}
	}
	if r == 0 {
		for _, f := range alive {
			sc.st[f].scoreWord()
		}
		return alive, next
	}
	next = next[:0]
	for _, f := range alive {
		if st := &sc.st[f]; st.mark == stamp {
			st.scoreWord()
			next = append(next, f)
		}
	}
	return next, alive
}

// notePostings notes a match of weight w in language l for each flag of
// posts that dead (nil: none) does not mark.
func (sc *searchScratch) notePostings(posts []int32, dead []uint64, r int, stamp uint32, w uint16, l int, alive []int32) []int32 {
	for _, f := range posts {
		if dead == nil || dead[f>>6]&(1<<(f&63)) == 0 {
			alive = sc.noteMatch(f, r, stamp, w, l, alive)
		}
	}
	return alive
}

// verifyRound keeps the candidates that have a word in p's sources, read
// from each candidate's own words.
func (s *Snapshot) verifyRound(sc *searchScratch, p *plan, stamp uint32, alive, next []int32) ([]int32, []int32) {
	ix := s.search
	next = next[:0]
	for _, f := range alive {
		fl := s.flags.at(f)
		st := &sc.st[f]
		st.cur, st.langs = 0, 0
		g := ix.segOf(f)
		for l := range int(NumLangs) {
			if w := ix.weightIn(fl, g, p, l); w > 0 {
				st.cur = max(st.cur, w)
				st.langs |= 1 << l
			}
		}
		if st.cur > 0 {
			st.mark = stamp
			st.scoreWord()
			next = append(next, f)
		}
	}
	return next, alive
}

// weightIn is the weight of the best match of p among fl's words of
// language l, 0 for none; fl is segment g's.
func (ix *searchIndex) weightIn(fl *Flag, g int, p *plan, l int) uint16 {
	best := uint16(0)
	seg := ix.segs()[g]
	if srcs := p.words[g][l]; len(srcs) > 0 {
		t := seg.words[l].trie
		for _, id := range fl.wordsOf(l) {
			v := t.vocabOf(id)
			if v < 0 {
				continue
			}
			if k, ok := kindOf(srcs, v); ok {
				best = max(best, kindWeight[k])
			}
		}
	}
	if v := p.stem[g][l]; v >= 0 && best < kindWeight[MatchStem] {
		t := seg.stems[l].trie
		for _, id := range fl.stemsOf(l) {
			if t.vocabOf(id) == v {
				best = kindWeight[MatchStem]
			}
		}
	}
	return best
}
