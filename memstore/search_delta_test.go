package memstore

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

func deltaInput(i int, en string, now time.Time) FlagInput {
	return FlagInput{ID: fmt.Sprintf("d%05d", i), Slug: fmt.Sprintf("d-%d", i), Approved: true, Category: Categories[0],
		Text: [NumLangs]string{"tr", en, "de", "es"}, CreatedAt: now, UpdatedAt: now, Red: int64(i % 7)}
}

// sameSearch checks that got answers q as want does: the same hits, in
// the same order, with the same ranks and matched words.
func sameSearch(t *testing.T, at, q string, got, want *Snapshot) []SearchHit {
	t.Helper()
	a, an := got.Search(q, 1000)
	b, bn := want.Search(q, 1000)
	if an != bn || len(a) != len(b) {
		t.Fatalf("%s: Search(%q) found %d, from scratch %d", at, q, an, bn)
	}
	for k := range a {
		if a[k].Flag.ID() != b[k].Flag.ID() || a[k].Rank != b[k].Rank || !reflect.DeepEqual(a[k].Matches, b[k].Matches) {
			t.Fatalf("%s: Search(%q)[%d] is %+v, from scratch %+v", at, q, k, a[k], b[k])
		}
	}
	return a
}

// sameCosts checks that got's index counts, in every language, as many
// live postings of words and of stems as want's.
func sameCosts(t *testing.T, at string, got, want *Snapshot) {
	t.Helper()
	count := func(s *Snapshot) (n [2][NumLangs]int) {
		for _, g := range s.search.segs() {
			for l := range g.words {
				n[0][l] += g.words[l].cost(0, g.words[l].size())
				n[1][l] += g.stems[l].cost(0, g.stems[l].size())
			}
		}
		return n
	}
	if g, w := count(got), count(want); g != w {
		t.Fatalf("%s: live postings %v, from scratch %v", at, g, w)
	}
}

// A removal leaves the base's postings in place, marked dead: the
// costs a query plans by count the live ones only. With 60 flags saying
// "money", the word is taken as meant (TypoBelow) and "monkey" is not
// matched; with 20 of them removed, it is, as from scratch.
func TestDeadPostingsCountedOut(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var ins []FlagInput
	for i := range 60 {
		ins = append(ins, deltaInput(i, "money talks", now))
	}
	for i := 60; i < 63; i++ {
		ins = append(ins, deltaInput(i, "monkey business", now))
	}
	snap, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, n := snap.Search("money", 100); n != 60 {
		t.Fatalf("money: %d hits, want the 60 exact ones", n)
	}
	var gone []FlagInput
	for i := range 20 {
		in := ins[i]
		in.Approved = false
		gone = append(gone, in)
	}
	next, err := Build(snap, Change{Flags: gone, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if next.search.seg[0].words[EN].trie != snap.search.seg[0].words[EN].trie || next.search.seg[1] != nil {
		t.Fatal("a removal rebuilt the base, or made a delta")
	}
	scratch, err := Build(nil, Change{Full: true, Flags: append(ins[20:60:60], ins[60:]...), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if hits := sameSearch(t, "after removals", "money", next, scratch); len(hits) != 43 {
		t.Fatalf("money: %d hits, want 40 exact and 3 typos", len(hits))
	}
}

// The delta holds at most deltaMax flags: past it, the next build folds
// it into a new base. A flag rewritten again and again stays one flag of
// the delta, but its new words fill the lexicon: past lexiconSlack more
// than the base's, a build folds too, and the lexicon is compacted.
func TestDeltaIsBounded(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var ins []FlagInput
	for i := range 300 {
		ins = append(ins, deltaInput(i, fmt.Sprintf("word%d common", i), now))
	}
	snap, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	folds, deltas := 0, 0
	for i := 300; i < 300+3*deltaMax(600); i++ {
		in := deltaInput(i, fmt.Sprintf("word%d common", i), now)
		ins = append(ins, in)
		next, err := Build(snap, Change{Flags: []FlagInput{in}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		ix := next.search
		if len(ix.deltaOf) > deltaMax(next.Len()) {
			t.Fatalf("%d flags: a delta of %d", next.Len(), len(ix.deltaOf))
		}
		if ix.seg[0] != snap.search.seg[0] && ix.seg[0].words[EN].trie != snap.search.seg[0].words[EN].trie {
			folds++
		}
		if ix.seg[1] != nil {
			deltas++
		}
		snap = next
	}
	if folds == 0 || deltas < 2*deltaMax(600) {
		t.Fatalf("%d folds, %d builds with a delta", folds, deltas)
	}
	scratch, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	sameSearch(t, "after additions", "common word1", snap, scratch)
	sameSearch(t, "after additions", "word999", snap, scratch)

	rewritten := ins[0]
	start := snap.lexicon.size()
	folds, renewals := 0, 0
	for k := range 2000 {
		rewritten.Text[EN] = fmt.Sprintf("fresh%d common", k)
		next, err := Build(snap, Change{Flags: []FlagInput{rewritten}, LoadedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(next.search.deltaOf) > 1+len(snap.search.deltaOf) {
			t.Fatalf("rewrite %d: the delta grew from %d to %d", k, len(snap.search.deltaOf), len(next.search.deltaOf))
		}
		if next.search.seg[1] == nil {
			folds++
		}
		if next.renewed { // a copy of every flag: the copies keep their versions
			renewals++
			was, _, _ := snap.FlagBySlug(ins[1].Slug)
			now, _, _ := next.FlagBySlug(ins[1].Slug)
			if now == was || now.Version() != was.Version() {
				t.Fatalf("rewrite %d: a renewed lexicon's copy of a flag: version %d, was %d", k, now.Version(), was.Version())
			}
		}
		if was, _, _ := snap.FlagBySlug(rewritten.Slug); was != nil {
			if now, _, _ := next.FlagBySlug(rewritten.Slug); now.Version() == was.Version() {
				t.Fatalf("rewrite %d: the rewritten flag kept its version %d", k, was.Version())
			}
		}
		// A fold compacts where words or stems alone pass the slack: the
		// lexicon stays within twice the slack of what the flags use.
		if n := next.lexicon.size(); n > start+2*start/lexiconSlack+8 {
			t.Fatalf("rewrite %d: the lexicon holds %d words and stems, from %d", k, n, start)
		}
		snap = next
	}
	if folds == 0 || renewals == 0 {
		t.Fatalf("the rewrites folded the delta %d times and renewed the lexicon %d times", folds, renewals)
	}
	ins[0] = rewritten
	scratch, err = Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	sameSearch(t, "after rewrites", "fresh1999", snap, scratch)
	sameSearch(t, "after rewrites", "common", snap, scratch)
}

// From half of deltaMax a new base is built in the background, while the
// loads go on with the base they have; the first load to find it built
// takes it in, with a delta of what changed since it began (here over
// two loads: a flag added, one rewritten, one removed, another added),
// and answers as a build from scratch does.
func TestFoldingIsTakenIn(t *testing.T) {
	defer func(d int) { deltaFloor, foldGate = d, nil }(deltaFloor)
	deltaFloor, foldGate = 8, make(chan struct{})
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var ins []FlagInput
	for i := range 100 { // words enough that the few new ones stay within lexiconSlack
		ins = append(ins, deltaInput(i, fmt.Sprintf("word%d common alpha%d beta%d gamma%d", i, i, i, i), now))
	}
	snap, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	base := snap.search.seg[0]
	tick := func(in ...FlagInput) *searchIndex {
		t.Helper()
		if snap, err = Build(snap, Change{Flags: in, LoadedAt: now}); err != nil {
			t.Fatal(err)
		}
		return snap.search
	}
	add := func(i int) FlagInput {
		in := deltaInput(i, fmt.Sprintf("word%d common", i), now)
		ins = append(ins, in)
		return in
	}
	for i := 100; i < 104; i++ {
		if ix := tick(add(i)); ix.seg[0] != base && ix.seg[0].words[EN].trie != base.words[EN].trie || ix.folding != nil {
			t.Fatalf("flag %d: a new base, or one begun, below half of deltaMax", i)
		}
	}
	ix := tick(add(104))
	f := ix.folding
	if f == nil || len(ix.deltaOf) != 5 {
		t.Fatalf("no new base begun with a delta of 5 (%d)", len(ix.deltaOf))
	}
	ins[3].Text[EN] = "rewritten common"
	ins[5].Red += 3 // a vote: the same texts, not the delta's
	gone := ins[7]
	gone.Approved = false
	ins = slices.Delete(ins, 7, 8)
	if ix := tick(add(105), ins[3], gone, ins[5]); ix.folding != f || ix.seg[0].words[EN].trie != base.words[EN].trie {
		t.Fatal("a load waited for the new base, or dropped it")
	}
	tick(add(106))
	close(foldGate)
	<-f.done
	ix = tick(add(107))
	if ix.folding != nil || ix.baseN != 105 || ix.seg[0].words[EN].trie == base.words[EN].trie {
		t.Fatalf("the new base was not taken in: %d slots", ix.baseN)
	}
	if !slices.Equal(ix.deltaOf, []int32{3, 105, 106, 107}) || !ix.isDead(3) || !ix.isDead(7) || ix.isDead(4) {
		t.Fatalf("taken in with a delta of %v", ix.deltaOf)
	}
	scratch, err := Build(nil, Change{Full: true, Flags: ins, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"common", "word104", "word105", "word107", "word7", "word3", "rewritten", "word1", "commno"} {
		sameSearch(t, "after the new base", q, snap, scratch)
	}
	sameCosts(t, "after the new base", snap, scratch)
}
