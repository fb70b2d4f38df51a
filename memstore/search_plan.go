package memstore

import (
	"math/bits"
	"slices"
)

// span is a range [lo, hi) of one trie's vocabulary.
type span struct{ lo, hi int32 }

// source is a range of a language's vocabulary that a query word
// matches, and how.
type source struct {
	span
	kind MatchKind
}

// plan is one query word resolved against the index.
type plan struct {
	w   *QueryWord
	idx int // the word's place in the query
	// words are, per segment and language, the ranges of the word trie
	// it matches, ordered and disjoint; stem is the index of its stem in
	// the stem trie, or -1.
	words       [numSegs][NumLangs][]source
	stem        [numSegs][NumLangs]int32
	postings    int // its postings: the cost of reading them
	sourceWords int // vocabulary words and stems in its sources
}

// plan resolves each word of q to its exact and prefix ranges in the
// languages o searches.
func (ix *searchIndex) plan(q Query, o *FindOptions) []plan {
	q.stem()
	plans := make([]plan, len(q.words))
	for i := range q.words {
		p := &plans[i]
		p.w, p.idx = &q.words[i], i
		for g, seg := range ix.segs() {
			for l := range seg.words {
				t := &seg.words[l]
				p.stem[g][l] = -1
				if !o.searches(l) {
					continue
				}
				lo, hi := t.prefixRange(p.w.Text)
				if !p.w.Prefix {
					lo, hi = t.wordRange(p.w.Text)
				}
				if lo < hi && t.word(lo) == p.w.Text {
					p.add(t, g, l, source{span{lo, lo + 1}, MatchExact})
					lo++
				}
				if lo < hi {
					p.add(t, g, l, source{span{lo, hi}, MatchPrefix})
				}
			}
		}
		if ix.seg[1] == nil {
			p.stem[1] = [NumLangs]int32{-1, -1, -1, -1}
		}
	}
	return plans
}

// add adds src to the sources of segment g's language l and counts its
// cost.
func (p *plan) add(t *vocab, g, l int, src source) {
	p.words[g][l] = append(p.words[g][l], src)
	p.postings += t.cost(src.lo, src.hi)
	p.sourceWords += int(src.hi - src.lo)
}

// TypoBelow is the number of exact and prefix matches (a flag counted
// once per vocabulary word of its text that matches) under which a query
// word is also matched with typos: a word that already matches that much
// is taken as meant, and its typos would only add hits ranked below.
const TypoBelow = 50

// ForgiveBudget is the part of SearchBudget(n) that stem and typo matches
// may take: the trie nodes the typo search visits and the postings the
// stems and typos add, over all the words of a query.
func ForgiveBudget(n int) int { return SearchBudget(n) / 2 }

// forgive adds to each plan, in query order, its stem matches and, for a
// word with fewer than TypoBelow exact and prefix matches, its typo
// matches, while they fit in ForgiveBudget, and in what is left of budget after
// twice every word's exact and prefix postings (their reading and ranking): a word whose typo search or
// whose added postings would pass it is matched without typos, and
// without its stems if they too would pass it. The typo search's visits
// count as work whether or not its matches are kept.
func (ix *searchIndex) forgive(plans []plan, o *FindOptions, budget int, res *SearchResult) {
	left := ForgiveBudget(ix.n)
	base := 0
	for i := range plans {
		base += plans[i].postings + plans[i].sourceWords
	}
	left = min(left, budget-2*base) // room for the base's rounds and ranking
	for i := range plans {
		p := &plans[i]
		var stems [numSegs][NumLangs]int32
		cost, found := 0, 0
		for g, seg := range ix.segs() {
			for l := range seg.stems {
				t := &seg.stems[l]
				stems[g][l] = -1
				if o.searches(l) && p.w.runes >= minStemRunes {
					if lo, hi := t.wordRange(p.w.stems[l]); lo < hi {
						stems[g][l] = lo
						cost += t.cost(lo, hi) + 1
						found++
					}
				}
			}
		}
		if ix.seg[1] == nil {
			stems[1] = [NumLangs]int32{-1, -1, -1, -1}
		}
		if found > 0 && cost <= left {
			left -= cost
			p.stem = stems
			res.stemmed |= 1 << p.idx
			p.postings += cost - found
			p.sourceWords += found
		}
		if MaxTypos(p.w.runes) > 0 && p.postings-stemCost(ix, p) < TypoBelow && left > 0 {
			left -= ix.typos(p, o, left, res)
		}
	}
}

// stemCost is the number of postings of p's stems.
func stemCost(ix *searchIndex, p *plan) int {
	c := 0
	for g, seg := range ix.segs() {
		for l, v := range p.stem[g] {
			if v >= 0 {
				c += seg.stems[l].cost(v, v+1)
			}
		}
	}
	return c
}

// typos adds p's typo matches if its trie walks and their postings fit
// in left, and returns the work it took from left.
func (ix *searchIndex) typos(p *plan, o *FindOptions, left int, res *SearchResult) int {
	var found [numSegs][NumLangs][]source
	spent, cost, n := 0, 0, 0
	var w *typoWalk
	for g, seg := range ix.segs() {
		for l := range seg.words {
			t := &seg.words[l]
			if !o.searches(l) {
				continue
			}
			if w == nil {
				w = newTypoWalk(t.trie, p.w.Text, left)
			}
			w.reset(t.trie, left-spent)
			done := w.run()
			spent += w.visits
			if !done {
				res.Work += spent
				return spent
			}
			for _, sp := range w.out {
				for _, part := range subtract(sp, p.words[g][l]) {
					found[g][l] = append(found[g][l], source{part, MatchTypo})
					cost += t.cost(part.lo, part.hi)
					n += int(part.hi - part.lo)
				}
			}
		}
	}
	res.Work += spent
	if spent+cost+n > left || cost == 0 {
		return spent
	}
	for g, seg := range ix.segs() {
		for l := range seg.words {
			for _, src := range found[g][l] {
				p.add(&seg.words[l], g, l, src)
			}
			slices.SortFunc(p.words[g][l], func(a, b source) int { return int(a.lo - b.lo) })
		}
	}
	res.typos |= 1 << p.idx
	return spent + cost + n
}

// subtract returns the parts of sp outside every range of srcs (ordered
// and disjoint).
func subtract(sp span, srcs []source) []span {
	out := []span{sp}
	for _, s := range srcs {
		var next []span
		for _, x := range out {
			if s.hi <= x.lo || s.lo >= x.hi {
				next = append(next, x)
				continue
			}
			if x.lo < s.lo {
				next = append(next, span{x.lo, s.lo})
			}
			if s.hi < x.hi {
				next = append(next, span{s.hi, x.hi})
			}
		}
		out = next
	}
	return out
}

// kindOf returns how the vocabulary word v matches one of srcs, ordered
// and disjoint.
func kindOf(srcs []source, v int32) (MatchKind, bool) {
	if len(srcs) > 4 {
		i, _ := slices.BinarySearchFunc(srcs, v, func(s source, v int32) int { return int(s.lo - v) })
		// srcs[i] is the first range starting at v or after.
		if i < len(srcs) && srcs[i].lo == v {
			return srcs[i].kind, true
		}
		if i > 0 && v < srcs[i-1].hi {
			return srcs[i-1].kind, true
		}
		return 0, false
	}
	for _, s := range srcs {
		if v >= s.lo && v < s.hi {
			return s.kind, true
		}
	}
	return 0, false
}

// lookups is the cost of kindOf over n sources.
func lookups(n int) int {
	if n > 4 {
		return bits.Len(uint(n))
	}
	return max(n, 1)
}
