package memstore

import "slices"

// deltaMax is the most flags the search index's delta holds over n
// flags: a sixty-fourth of them, at least 256 and at most 8,192. Past it,
// or past lexiconSlack more words in the lexicon than when the base was
// built, a build folds the delta into a new base: an index from scratch
// (at a million flags, a second and a half), once per 8,192 flags added
// or rewritten. Below it, a build makes a delta of at most that many
// flags (a few milliseconds).
func deltaMax(n int) int { return min(max(n/64, 256), 8192) }

// nextSearch makes s's search index from prev's: prev's own where no
// flag was added or removed and no text changed; else prev's base, with
// the entries of the flags removed or rewritten since it was built
// marked dead, and a delta of the flags added or rewritten since; an
// index from scratch where there was none, where the build renumbered
// the slots, or where the delta would grow past deltaMax.
func (s *Snapshot) nextSearch(prev *Snapshot, d delta) *searchIndex {
	ix := prev.search
	if ix == nil || d.remap != nil {
		return s.fullSearch(ix)
	}
	var changed []int32 // the slots whose texts changed: removed, added or rewritten
	for i, in := range unionOf(d.stale, d.fresh) {
		var pf, f *Flag
		if in&inA != 0 {
			pf = prev.flags.at(i)
		}
		if in&inB != 0 {
			f = s.flags.at(i)
		}
		if pf == nil || f == nil || pf.Text != f.Text {
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		return ix
	}
	var into []int32 // the delta's slots: prev's less the flags removed, and the flags added or rewritten
	for i, in := range unionOf(ix.deltaOf, changed) {
		if in&inB == 0 || s.flags.at(i) != nil {
			into = append(into, i)
		}
	}
	if len(into) > deltaMax(s.live) || s.lexicon.size() > ix.baseLex+ix.baseLex/lexiconSlack {
		return s.fullSearch(ix)
	}
	nx := &searchIndex{baseN: ix.baseN, baseLex: ix.baseLex, deltaOf: into, n: s.live, slots: s.flags.len(),
		dead: ix.dead, scratch: ix.scratch}
	base := *ix.seg[0] // its gone lists change
	var gone [2][NumLangs][]int32
	own := false // nx.dead is a copy of this build's
	for _, i := range changed {
		if i >= ix.baseN || ix.isDead(i) {
			continue // the delta's, or dead already
		}
		if !own {
			nx.dead, own = make([]uint64, (ix.baseN+63)/64), true
			copy(nx.dead, ix.dead)
		}
		nx.dead[i>>6] |= 1 << (i & 63)
		pf := prev.flags.at(i) // the flag the base indexed: its texts did not change since
		for l := range int(NumLangs) {
			for _, id := range pf.wordsOf(l) {
				gone[0][l] = append(gone[0][l], base.words[l].vocabOf(id))
			}
			for _, id := range pf.stemsOf(l) {
				gone[1][l] = append(gone[1][l], base.stems[l].vocabOf(id))
			}
		}
	}
	for l := range int(NumLangs) {
		base.words[l].gone = mergeSorted(base.words[l].gone, gone[0][l])
		base.stems[l].gone = mergeSorted(base.stems[l].gone, gone[1][l])
	}
	nx.seg[0] = &base
	if len(into) > 0 {
		nx.seg[1] = buildSegment(s.lexicon, &s.flags, func(vocab []string, ids func(int32) []uint32) *trie {
			return buildSparseTrie(into, vocab, ids)
		})
	}
	nw := ix.nwords.edit()
	for nw.p.n < nx.slots {
		nw.push([NumLangs]uint8{})
	}
	for _, i := range changed {
		var n [NumLangs]uint8
		if f := s.flags.at(i); f != nil {
			n = nwordsOf(f)
		}
		nw.set(i, n)
	}
	nx.nwords = nw.done()
	nx.countWords()
	return nx
}

// fullSearch makes s's search index from scratch, after a compaction of
// the lexicon where it holds too many words no flag uses; prev (nil for
// none) lends its scratch.
func (s *Snapshot) fullSearch(prev *searchIndex) *searchIndex {
	s.compactLexicon()
	if prev == nil {
		return buildSearch(&s.flags, s.lexicon, nil)
	}
	return buildSearch(&s.flags, s.lexicon, prev.scratch)
}

// mergeSorted returns the values of a (ascending) and b (any order), in
// new memory where b has any, ascending.
func mergeSorted(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	slices.Sort(b)
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}
