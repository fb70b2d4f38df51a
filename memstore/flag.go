package memstore

import (
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// FlagInput is one flag as the loader reads it from the database.
type FlagInput struct {
	ID          string
	Slug        string
	Approved    bool
	Category    string
	Region      string // "" for the world region
	Text        [NumLangs]string
	Description [NumLangs]*string
	Contexts    []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Red, Green  int64
}

// Flag is an approved flag as the snapshot serves it: its data and the
// keys it sorts, filters and is searched by. A Flag is never modified once
// built, so snapshots share the ones that did not change, and so may
// whatever a reader derives from one.
//
// A Flag is one record, and holds no pointer: its strings follow it in
// memory, one run cut by ends (the id, the slug, the four texts, the
// region, the four descriptions and the contexts, in that order), then,
// 4-byte aligned, its word ids (see words). A flag of a full load is
// carved with others from a chunk of the arena, one of a tick allocated
// alone; either way the memory holds no pointer, so the collector marks
// it without scanning it: the snapshot's flags were most of a
// collection's work while each held three pointers (see bench/README.md).
// So a Flag is only ever used where it was made, through its pointer: a
// copy of the value would leave its strings and words behind (noCopy
// makes go vet report one).
type Flag struct {
	noCopy      noCopy
	ends        [numStrs]uint32
	Red, Green  int64
	controversy float64
	createdMS   int64
	updatedMS   int64
	version     uint64 // see Version
	// Language l's word ids (in the snapshot's lexicon) are
	// words()[wordEnd[l-1]:wordEnd[l]], its stem ids
	// words()[stemEnd[l-1]:stemEnd[l]], the first from wordEnd[NumLangs-1].
	wordEnd  [NumLangs]uint16
	stemEnd  [NumLangs]uint16
	Category Category
	Dominant Dominant
	// verbatim has bit k set when Cuts()[k] needs no escaping in JSON.
	verbatim uint8
	// descs has bit l set when language l has a description.
	descs uint8
	// at is the record's place in the allocation it was carved from, in
	// 8-byte words (0 for a record of its own): a flagList finds the
	// allocation from it (ownerOf).
	at uint32
}

// noCopy is a Flag's first field: go vet's copylocks check reports a
// value copied, as it does a sync.Mutex.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// flagHead is the size of a Flag; its record's strings start there.
const flagHead = unsafe.Sizeof(Flag{})

// recordSize is the bytes of a flag's record with nstr bytes of strings
// and nwords word ids, a multiple of 8.
func recordSize(nstr, nwords int) int {
	return (int(flagHead) + (nstr+3)&^3 + 4*nwords + 7) &^ 7
}

// newRecord returns a zero Flag with room after it for nstr bytes of
// strings and nwords word ids, from a (nil: on its own).
func newRecord(a *arena, nstr, nwords int) *Flag {
	p, at := a.record(recordSize(nstr, nwords))
	f := (*Flag)(p)
	f.at = at
	return f
}

// strs is the flag's run of strings.
func (f *Flag) strs() string {
	n := f.ends[numStrs-1]
	if n == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(f), flagHead)), n)
}

// words are the flag's word and stem ids (see wordEnd).
func (f *Flag) words() []uint32 {
	m := int(f.stemEnd[NumLangs-1])
	if m == 0 {
		return nil
	}
	off := flagHead + uintptr((f.ends[numStrs-1]+3)&^3)
	return unsafe.Slice((*uint32)(unsafe.Add(unsafe.Pointer(f), off)), m)
}

// fill writes the record's strings and word ids, which its ends and
// stemEnd must already count.
func (f *Flag) fill(strs string, words []uint32) {
	if len(strs) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(f), flagHead)), len(strs)), strs)
	}
	if len(words) > 0 {
		copy(f.words(), words)
	}
}

// flagVersions numbers the flags a process makes (see Version).
var flagVersions atomic.Uint64

// Version names the flag's data: two flags of a process have the same
// version only when one is a copy of the other (a renewed lexicon copies
// every flag), never when a load changed anything. A cache tells flags
// apart by it without keeping one alive, as holding the pointer would:
// with it, the memory its flag was carved from, shared with others (see
// arena).
func (f *Flag) Version() uint64 { return f.version }

// The places of a flag's strings in its run.
const (
	strID     = 0
	strSlug   = 1
	strText   = 2 // the first of NumLangs
	strRegion = strText + int(NumLangs)
	strDesc   = strRegion + 1 // the first of NumLangs
	// strContexts is the contexts, joined by commas ("" for none): the
	// database's column splits on them, so no context has one.
	strContexts = strDesc + int(NumLangs)
	numStrs     = strContexts + 1
)

// str is the flag's string k.
func (f *Flag) str(k int) string {
	lo := uint32(0)
	if k > 0 {
		lo = f.ends[k-1]
	}
	return f.strs()[lo:f.ends[k]]
}

// ID is the flag's id.
func (f *Flag) ID() string { return f.str(strID) }

// Slug is the flag's slug.
func (f *Flag) Slug() string { return f.str(strSlug) }

// Region is the flag's region code, "" for the world region.
func (f *Flag) Region() string { return f.str(strRegion) }

// Text is the flag's statement in language l.
func (f *Flag) Text(l Lang) string { return f.str(strText + int(l)) }

// Texts are the flag's statements, by language.
func (f *Flag) Texts() (t [NumLangs]string) {
	for l := range NumLangs {
		t[l] = f.Text(l)
	}
	return t
}

// sameTexts reports whether f and g have the same statements.
func (f *Flag) sameTexts(g *Flag) bool {
	for l := range NumLangs {
		if f.Text(l) != g.Text(l) {
			return false
		}
	}
	return true
}

// Description is the flag's description in language l, and whether it
// has one.
func (f *Flag) Description(l Lang) (string, bool) {
	return f.str(strDesc + int(l)), f.descs&(1<<l) != 0
}

// Cuts are the strings of f that vary most from flag to flag, in the
// order an encoding of f writes them: the id, the slug and the texts.
func (f *Flag) Cuts() (c [NumCuts]string) {
	for k := range c {
		c[k] = f.str(k)
	}
	return c
}

// NumCuts is the number of Cuts.
const NumCuts = 2 + NumLangs

// CreatedMS is CreatedAt in milliseconds since the Unix epoch.
func (f *Flag) CreatedMS() int64 { return f.createdMS }

// renumbered returns a copy of f, from a, whose word and stem ids are
// words (as many as f's): the lexicon's compaction (see compactLexicon).
func (f *Flag) renumbered(a *arena, words []uint32) *Flag {
	strs := f.strs()
	g := newRecord(a, len(strs), len(words))
	g.copyHead(f)
	g.fill(strs, words)
	return g
}

// copyHead copies f's fields into g, whose record must have room for
// f's strings and words.
func (g *Flag) copyHead(f *Flag) {
	g.ends, g.Red, g.Green, g.controversy = f.ends, f.Red, f.Green, f.controversy
	g.createdMS, g.updatedMS, g.version = f.createdMS, f.updatedMS, f.version
	g.wordEnd, g.stemEnd, g.Category, g.Dominant = f.wordEnd, f.stemEnd, f.Category, f.Dominant
	g.verbatim, g.descs = f.verbatim, f.descs
}

// lexicon numbers the folded words the snapshots of one loader have
// seen, from one snapshot to the next, until a build replaces it with one
// of the words in use (see compactLexicon). Only Build writes it (one at a
// time); requests never read it.
type lexicon struct {
	ids    map[string]uint32
	words  []string
	chunks strChunks // the words' bytes
	stems  *stemCache
	// stemScratch is newFlag's buffer of stem ids.
	stemScratch []uint32
}

func newLexicon() *lexicon { return &lexicon{ids: map[string]uint32{}, stems: newStemCache()} }

func (lx *lexicon) id(b []byte) uint32 {
	if id, ok := lx.ids[string(b)]; ok {
		return id
	}
	w := lx.chunks.str(unsafe.String(unsafe.SliceData(b), len(b)))
	id := uint32(len(lx.words))
	lx.ids[w] = id
	lx.words = append(lx.words, w)
	return id
}

// wordsOf returns the word ids of language l.
func (f *Flag) wordsOf(l int) []uint32 {
	lo := uint16(0)
	if l > 0 {
		lo = f.wordEnd[l-1]
	}
	return f.words()[lo:f.wordEnd[l]]
}

// stemsOf returns the stem ids of language l.
func (f *Flag) stemsOf(l int) []uint32 {
	lo := f.wordEnd[NumLangs-1]
	if l > 0 {
		lo = f.stemEnd[l-1]
	}
	return f.words()[lo:f.stemEnd[l]]
}

// Total is red + green.
func (f *Flag) Total() int64 { return f.Red + f.Green }

// Net is red minus green.
func (f *Flag) Net() int64 { return f.Red - f.Green }

// CreatedAt is when the flag was created, to the millisecond.
func (f *Flag) CreatedAt() time.Time { return time.UnixMilli(f.createdMS).UTC() }

// newFlag makes the Flag of in, from a, copying prev's strings and search
// words when they did not change. The category must be valid. Words are
// numbered in lx.
func newFlag(in *FlagInput, cat Category, prev *Flag, lx *lexicon, a *arena) *Flag {
	var (
		strs         string
		ends         [numStrs]uint32
		descs        uint8
		buf          []byte
		ids          []uint32
		wordEnd      [NumLangs]uint16
		stemEnd      [NumLangs]uint16
		ownIDs       bool
		sameStrs     = prev != nil && prev.sameStrs(in)
		verbatimBits uint8
	)
	if sameStrs {
		strs, ends, descs, verbatimBits = prev.strs(), prev.ends, prev.descs, prev.verbatim
	} else {
		n := len(in.ID) + len(in.Slug) + len(in.Region) + len(in.Contexts)
		for l := range NumLangs {
			n += len(in.Text[l])
			if d := in.Description[l]; d != nil {
				n += len(*d)
			}
		}
		for _, c := range in.Contexts {
			n += len(c)
		}
		buf, ends, descs = appendStrs(a.buffer(n), in)
		strs = unsafe.String(unsafe.SliceData(buf), len(buf))
	}
	if sameStrs || prev != nil && prev.Texts() == in.Text {
		ids, wordEnd, stemEnd = prev.words(), prev.wordEnd, prev.stemEnd
	} else {
		ownIDs = true
		ids = a.wordBuffer()
		st := lx.stemScratch[:0]
		var stEnd [NumLangs]int
		for l := range in.Text {
			ids, st = appendWordIDs(ids, st, in.Text[l], Lang(l), lx)
			wordEnd[l] = uint16(min(len(ids), 1<<16-1))
			stEnd[l] = len(st)
		}
		ids = ids[:wordEnd[NumLangs-1]]
		from := 0
		for l, end := range stEnd {
			ids = append(ids, st[from:end]...)
			stemEnd[l] = uint16(min(len(ids), 1<<16-1))
			from = end
		}
		lx.stemScratch = st[:0]
		ids = ids[:stemEnd[NumLangs-1]]
	}
	f := newRecord(a, len(strs), len(ids))
	*f = Flag{
		ends: ends, Category: cat, Red: in.Red, Green: in.Green,
		Dominant: DominantOf(in.Red, in.Green), controversy: Controversy(in.Red, in.Green),
		createdMS: in.CreatedAt.UnixMilli(), updatedMS: in.UpdatedAt.UnixMilli(),
		version: flagVersions.Add(1), wordEnd: wordEnd, stemEnd: stemEnd,
		descs: descs, verbatim: verbatimBits, at: f.at,
	}
	f.fill(strs, ids)
	if !sameStrs {
		f.verbatim = verbatimOf(f)
		a.done(buf)
	}
	if ownIDs {
		a.wordsDone(ids)
	}
	return f
}

// appendWordIDs appends the ids of the distinct folded words of s to ids,
// and the ids of their distinct stems in language l to stems.
func appendWordIDs(ids, stems []uint32, s string, l Lang, lx *lexicon) ([]uint32, []uint32) {
	start, stemStart := len(ids), len(stems)
	var buf []byte
	from := -1 // where the current word starts in s
	emit := func(to int) {
		if len(buf) == 0 {
			return
		}
		id := lx.id(buf)
		sid := lx.stems.of(l, id, s[from:to], string(buf) == s[from:to])
		buf = buf[:0]
		if !slices.Contains(stems[stemStart:], sid) {
			stems = append(stems, sid)
		}
		if !slices.Contains(ids[start:], id) {
			ids = append(ids, id)
		}
	}
	for i, r := range s {
		if isWordRune(r) {
			if from < 0 {
				from = i
			}
			buf = foldRune(buf, r)
		} else if from >= 0 {
			emit(i)
			from = -1
		}
	}
	if from >= 0 {
		emit(len(s))
	}
	return ids, stems
}
