package memstore

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// letters writes n in the letters a-z, so that it is one word.
func letters(n int) string {
	var b []byte
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(b)
		}
	}
}

// churnInputs are n flags whose texts are new in each round but for the
// flags of every third position, which keep the first round's: six words
// a language, one of them written with capitals (its stem is cached by
// the word as written).
func churnInputs(n, round int) []FlagInput {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	out := make([]FlagInput, n)
	for i := range out {
		in := FlagInput{ID: fmt.Sprintf("flg_%03d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
			Category: Categories[i%len(Categories)], CreatedAt: now, UpdatedAt: now, Red: int64(i), Green: 3}
		r := round
		if i%3 == 0 {
			r = 0
		}
		for l := range in.Text {
			var words []string
			for k := range 6 {
				words = append(words, "w"+letters(((r*n+i)*int(NumLangs)+l)*6+k))
			}
			words[0] = strings.ToUpper(words[0])
			in.Text[l] = strings.Join(words, " ")
		}
		out[i] = in
	}
	return out
}

// heapWith is the live heap, after a collection, while keep is held.
func heapWith(keep *Snapshot) uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(keep)
	return m.HeapAlloc
}

// TestLexiconBounded: replacing most flags' texts a thousand times, tick
// after tick (the others are shared from one snapshot to the next, and so
// must be renumbered when the lexicon is), leaves a lexicon (words and stems) and a heap within 10 % of
// a fresh start's with the same flags, and a snapshot that answers as the
// fresh one does.
func TestLexiconBounded(t *testing.T) {
	const flags, rounds = 40, 1000
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	base := heapWith(nil)
	snap, err := Build(nil, Change{Full: true, Flags: churnInputs(flags, 0), LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r < rounds; r++ {
		if snap, err = Build(snap, Change{Flags: churnInputs(flags, r), LoadedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	grown := heapWith(snap) - base
	words, stems := len(snap.lexicon.words), len(snap.lexicon.stems.words)

	last := churnInputs(flags, rounds-1)
	old := snap
	snap = nil
	base = heapWith(nil)
	fresh, err := Build(nil, Change{Full: true, Flags: last, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	want := heapWith(fresh) - base
	wantWords, wantStems := len(fresh.lexicon.words), len(fresh.lexicon.stems.words)
	t.Logf("after %d rounds: %d words, %d stems, heap %d; fresh: %d words, %d stems, heap %d",
		rounds, words, stems, grown, wantWords, wantStems, want)
	if float64(words) > 1.1*float64(wantWords) || float64(stems) > 1.1*float64(wantStems) {
		t.Errorf("lexicon of %d words and %d stems, a fresh start's %d and %d", words, stems, wantWords, wantStems)
	}
	if float64(grown) > 1.1*float64(want) {
		t.Errorf("heap %d bytes, a fresh start's %d", grown, want)
	}
	for _, q := range []string{
		"w" + letters(((rounds-1)*flags+5)*int(NumLangs)*6+2), "W" + letters(((rounds-1)*flags+1)*int(NumLangs)*6),
		"w" + letters((3*int(NumLangs)+1)*6+3), "W" + letters(6*int(NumLangs)*6+12), // kept since the first round
	} {
		got, gotN := old.Search(q, 50)
		exp, expN := fresh.Search(q, 50)
		if gotN != expN || gotN == 0 || len(got) != len(exp) || got[0].Flag.ID() != exp[0].Flag.ID() || got[0].Rank != exp[0].Rank {
			t.Errorf("search %q: %d hits, want %d as the fresh snapshot's", q, gotN, expN)
		}
	}
}

// The compaction's copy of a flag keeps every field but the word ids and
// its record's place (at, its own): a field added to Flag and not to
// renumbered fails here.
func TestRenumberedKeepsEveryField(t *testing.T) {
	d := "why"
	in := FlagInput{ID: "flg_1", Slug: "s", Approved: true, Category: Categories[2], Region: "TR",
		Text: [NumLangs]string{"bir", "two", "drei", "cuatro"}, Description: [NumLangs]*string{&d},
		Contexts: []string{Contexts[0]}, CreatedAt: time.UnixMilli(1e12), UpdatedAt: time.UnixMilli(2e12), Red: 2, Green: 9}
	s, err := Build(nil, Change{Full: true, Flags: []FlagInput{in}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.At(0)
	src := reflect.ValueOf(f).Elem()
	for i := range src.NumField() {
		if name := src.Type().Field(i).Name; name != "noCopy" && name != "at" && src.Field(i).IsZero() {
			t.Fatalf("the test's flag leaves %s zero: it cannot show the field is copied", name)
		}
	}
	words := slices.Clone(f.words())
	for k := range words {
		words[k] += 100
	}
	c := f.renumbered(newArena(), words)
	dst := reflect.ValueOf(c).Elem()
	for i := range src.NumField() {
		name := src.Type().Field(i).Name
		if name == "at" {
			continue
		}
		// fmt prints unexported fields: equal prints are the same values.
		if got, want := fmt.Sprintf("%#v", dst.Field(i)), fmt.Sprintf("%#v", src.Field(i)); got != want {
			t.Errorf("field %s is %s, want %s", name, got, want)
		}
	}
	if c.strs() != f.strs() || !slices.Equal(c.words(), words) {
		t.Errorf("the copy's strings %q and words %v, want %q and %v", c.strs(), c.words(), f.strs(), words)
	}
}

// A lexicon's words and a stem cache's stems and raw words are carved
// from chunks: a lexicon of 20,000 new words takes a few dozen
// allocations for their bytes, not one a word; each is an exact copy;
// and a compaction copies the words it keeps into chunks of its own, so
// that the old lexicon's chunks go with it.
func TestLexiconWordsInChunks(t *testing.T) {
	var c strChunks
	words := make([]string, 20_000)
	for i := range words {
		words[i] = "w" + letters(i)
	}
	got := make([]string, len(words))
	allocs := testing.AllocsPerRun(1, func() {
		c = strChunks{}
		for i, w := range words {
			got[i] = c.str(w)
		}
	})
	for i, w := range got {
		if w != words[i] || unsafe.StringData(w) == unsafe.StringData(words[i]) {
			t.Fatalf("word %d is %q, a copy of %q", i, w, words[i])
		}
	}
	if allocs > 60 {
		t.Errorf("%v allocations for 20,000 words", allocs)
	}
	long := strings.Repeat("x", strChunk)
	if w := c.str(long); w != long || unsafe.StringData(w) == unsafe.StringData(long) {
		t.Error("a long string is not copied")
	}
	raw := make([][]byte, len(words))
	for i, w := range words {
		raw[i] = []byte(w)
	}
	var lx *lexicon
	allocs = testing.AllocsPerRun(1, func() {
		lx = newLexicon()
		for _, w := range raw {
			lx.id(w)
		}
	})
	if len(lx.words) != len(words) || allocs > 200 {
		t.Errorf("%v allocations for a lexicon of %d words", allocs, len(lx.words))
	}
	in := []byte("wab")
	id := lx.id(in)
	in[1] = 'z' // the lexicon's word is a copy
	if lx.words[id] != "wab" {
		t.Errorf("the lexicon's word changed with its input: %q", lx.words[id])
	}

	// A compaction: the flags' texts replaced until a build renews the
	// lexicon. No word of the new one shares the old one's bytes.
	snap, err := Build(nil, Change{Full: true, Flags: churnInputs(300, 0)})
	if err != nil {
		t.Fatal(err)
	}
	old := snap.lexicon
	for round := 1; snap.lexicon == old && round < 40; round++ {
		if snap, err = Build(snap, Change{Full: true, Flags: churnInputs(300, round)}); err != nil {
			t.Fatal(err)
		}
	}
	if snap.lexicon == old {
		t.Fatal("no build renewed the lexicon")
	}
	oldBytes := map[*byte]bool{}
	for _, w := range append(slices.Clone(old.words), old.stems.words...) {
		oldBytes[unsafe.StringData(w)] = true
	}
	for _, w := range append(slices.Clone(snap.lexicon.words), snap.lexicon.stems.words...) {
		if oldBytes[unsafe.StringData(w)] {
			t.Fatalf("the renewed lexicon's word %q is the old one's", w)
		}
	}
}

// A stem cache keeps its stems and the words it knows by how they are
// written in its chunks.
func TestStemsInChunks(t *testing.T) {
	c := newStemCache()
	in := func(w string) bool {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(c.chunks.buf)))
		p := uintptr(unsafe.Pointer(unsafe.StringData(w)))
		return p >= lo && p < lo+uintptr(len(c.chunks.buf))
	}
	sid := c.of(EN, 0, "Running", false)
	if w := c.words[sid]; w != "run" || !in(w) {
		t.Errorf("stem %q not in the cache's chunk", w)
	}
	for raw := range c.byRaw[EN] {
		if raw != "Running" || !in(raw) {
			t.Errorf("raw word %q not in the cache's chunk", raw)
		}
	}
}
