package memstore

import (
	"slices"
	"sync/atomic"
)

// deltaMax is the most flags the search index's delta holds over n
// flags: a sixty-fourth of them, at least deltaFloor (256) and at most
// 8,192. From half of it a new base is built off the loads' path (see
// folding); past it, or past lexiconSlack more words in the lexicon than
// when the base was built, a load builds the index from scratch itself
// (at a million flags, about a second and a half). Below it, a load makes
// a delta of at most that many flags (a few milliseconds).
func deltaMax(n int) int { return min(max(n/64, deltaFloor), 8192) }

// deltaFloor is deltaMax's least value; a variable for the tests, which
// fold often.
var deltaFloor = 256

// folding is a new base being built in its own goroutine from the flags
// of one snapshot, so that no load waits for it: the loads that follow
// go on with the base and delta they have, and the first to find it done
// takes it in (adopt), with a delta of what changed since. A renumbering
// or an index built from scratch leaves it behind, to be collected.
type folding struct {
	flags flagList // the snapshot's: never written
	done  chan struct{}
	ix    *searchIndex // a base of flags alone; set before done closes
}

// foldsTaken counts the new bases taken in; the tests require some.
var foldsTaken atomic.Int64

// waitFolds makes a load wait for a folding begun before it, so that the
// tests take every one in; a folding begun while foldGate is not nil
// waits for it to close before it builds. Both are the tests'.
var (
	waitFolds bool
	foldGate  chan struct{}
)

// startFolding begins a new base of s's flags.
func startFolding(s *Snapshot, pool *searchIndex) *folding {
	f := &folding{flags: s.flags, done: make(chan struct{})}
	// The lexicon's lists as they are now: later loads only append to
	// them, past what these headers reach.
	words, stems := s.lexicon.words, s.lexicon.stems.words
	gate := foldGate
	go func() {
		if gate != nil {
			<-gate
		}
		f.ix = buildSearch(&f.flags, words, stems, pool.scratch)
		close(f.done)
	}()
	return f
}

// ready reports whether the new base is built.
func (f *folding) ready() bool {
	if waitFolds {
		<-f.done
	}
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// nextSearch makes s's search index from prev's: prev's own where no
// flag was added or removed and no text changed; else prev's base (or
// the folding one, once built), with the entries of the flags removed or
// rewritten since it was built marked dead, and a delta of the flags
// added or rewritten since; an index from scratch where there was none,
// where the build renumbered the slots, or where the delta would grow
// past deltaMax.
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
		if pf == nil || f == nil || !pf.sameTexts(f) {
			changed = append(changed, i)
		}
	}
	adopted := ix.folding != nil && ix.folding.ready()
	if adopted {
		ix = adopt(ix.folding, prev)
	}
	if len(changed) == 0 && !adopted {
		return ix
	}
	var into []int32 // the delta's slots: ix's less the flags removed, and the flags added or rewritten
	for i, in := range unionOf(ix.deltaOf, changed) {
		if in&inB == 0 || s.flags.at(i) != nil {
			into = append(into, i)
		}
	}
	if len(into) > deltaMax(s.live) || s.lexicon.size() > ix.baseLex+ix.baseLex/lexiconSlack {
		return s.fullSearch(ix)
	}
	nx := &searchIndex{baseN: ix.baseN, baseLex: ix.baseLex, deltaOf: into, n: s.live, slots: s.flags.len(),
		dead: ix.dead, scratch: ix.scratch, folding: ix.folding}
	if adopted {
		nx.folding = nil
	}
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
		// The flag the base indexed: its texts did not change since.
		gone = goneOf(&base, prev.flags.at(i), gone)
	}
	for l := range int(NumLangs) {
		base.words[l].gone = mergeSorted(base.words[l].gone, gone[0][l])
		base.stems[l].gone = mergeSorted(base.stems[l].gone, gone[1][l])
	}
	nx.seg[0] = &base
	if len(into) > 0 {
		nx.seg[1] = buildSegment(s.lexicon.words, s.lexicon.stems.words, &s.flags, func(vocab []string, ids func(int32) []uint32) *trie {
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
	if nx.folding == nil && 2*len(into) > deltaMax(s.live) {
		nx.folding = startFolding(s, nx)
	}
	return nx
}

// goneOf adds the vocabulary places of f's words and stems in base, the
// postings of f that die, to gone (words, then stems, per language).
func goneOf(base *segment, f *Flag, gone [2][NumLangs][]int32) [2][NumLangs][]int32 {
	for l := range int(NumLangs) {
		for _, id := range f.wordsOf(l) {
			gone[0][l] = append(gone[0][l], base.words[l].vocabOf(id))
		}
		for _, id := range f.stemsOf(l) {
			gone[1][l] = append(gone[1][l], base.stems[l].vocabOf(id))
		}
	}
	return gone
}

// adopt makes, from a folding's new base, the index of prev's flags: the
// entries of the slots whose flags were since removed or rewritten dead,
// and the flags added or rewritten since as the delta's (deltaOf; the
// caller builds its segment). Pages prev shares with the folding's flags
// are passed over whole.
func adopt(f *folding, prev *Snapshot) *searchIndex {
	foldsTaken.Add(1)
	b := f.ix
	nx := &searchIndex{baseN: b.baseN, baseLex: b.baseLex, n: prev.live, slots: prev.flags.len(), scratch: prev.search.scratch}
	base := *b.seg[0]
	var gone [2][NumLangs][]int32
	nw := b.nwords.edit()
	for nw.p.n < nx.slots {
		nw.push([NumLangs]uint8{})
	}
	old, cur := &f.flags, &prev.flags
	for k, pg := range cur.pages {
		if k < len(old.pages) && old.pages[k] == pg {
			continue
		}
		for j := range pageLen {
			i := int32(k*pageLen + j)
			if int(i) >= cur.n {
				break
			}
			var was *Flag
			if int(i) < old.n {
				was = old.at(i)
			}
			is := pg.get(j)
			if was == is || was != nil && is != nil && was.sameTexts(is) {
				continue
			}
			if was != nil {
				if nx.dead == nil {
					nx.dead = make([]uint64, (b.baseN+63)/64)
				}
				nx.dead[i>>6] |= 1 << (i & 63)
				gone = goneOf(&base, was, gone)
			}
			var n [NumLangs]uint8
			if is != nil {
				nx.deltaOf = append(nx.deltaOf, i)
				n = nwordsOf(is)
			}
			nw.set(i, n)
		}
	}
	for l := range int(NumLangs) {
		base.words[l].gone = mergeSorted(nil, gone[0][l])
		base.stems[l].gone = mergeSorted(nil, gone[1][l])
	}
	nx.seg[0] = &base
	nx.nwords = nw.done()
	return nx
}

// fullSearch makes s's search index from scratch, after a compaction of
// the lexicon where it holds too many words no flag uses; prev (nil for
// none) lends its scratch.
func (s *Snapshot) fullSearch(prev *searchIndex) *searchIndex {
	s.compactLexicon()
	if prev == nil {
		return buildSearch(&s.flags, s.lexicon.words, s.lexicon.stems.words, nil)
	}
	return buildSearch(&s.flags, s.lexicon.words, s.lexicon.stems.words, prev.scratch)
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
