package memstore

import (
	"math"
	"slices"
	"sync"
)

// searchIndex holds the search index of one snapshot's flags, by slot,
// in one or two segments: the base, built over every flag at some build,
// and the delta, over the flags added or given new texts since, which
// every build that adds, removes or rewrites a flag makes anew (see
// nextSearch). A query reads both; a flag is in one of them.
type searchIndex struct {
	// seg[0] is the base, seg[1] the delta or nil for none.
	seg [numSegs]*segment
	// dead has bit i set where the base's entry of slot i is stale: its
	// flag was removed or its texts replaced since the base was built. A
	// flag with its bit set, or in a slot past baseN, is the delta's.
	dead     []uint64
	baseN    int32
	deltaOf  []int32 // the slots of the delta's flags, ascending
	baseLex  int     // the lexicon's words and stems when the base was built
	n, slots int     // the flags indexed, and the slots
	// perFlag is each language's mean number of words per flag: what
	// checking one candidate's own words costs.
	perFlag [NumLangs]int
	// nwords is, per slot and language, its flag's number of distinct
	// words (at most 255): the denominator of the share of its words
	// matched.
	nwords  paged[[NumLangs]uint8]
	scratch *sync.Pool // shared by the indexes built from one another
	// folding, when not nil, is a new base being built off the loads'
	// path, which a later build takes in (see nextSearch).
	folding *folding
	// version names the index (see Snapshot.SearchVersion), set by the
	// build that first serves it.
	version uint64
}

// segment is a search index over some flags: per language, a prefix trie
// of their folded words and one of their stems.
type segment struct {
	words, stems [NumLangs]vocab
}

// vocab is one trie of a segment, with the postings it holds of flags
// since dead (see searchIndex.dead) counted out of its costs.
type vocab struct {
	*trie
	gone []int32 // the vocabulary place of each dead posting, ascending
}

// cost is the number of live postings of the words in [lo, hi).
func (v *vocab) cost(lo, hi int32) int {
	c := v.trie.cost(lo, hi)
	if len(v.gone) > 0 {
		a, _ := slices.BinarySearch(v.gone, lo)
		b, _ := slices.BinarySearch(v.gone, hi)
		c -= b - a
	}
	return c
}

// segs returns the segments, the base first.
func (ix *searchIndex) segs() []*segment {
	if ix.seg[1] == nil {
		return ix.seg[:1]
	}
	return ix.seg[:]
}

// numSegs is the most segments an index has.
const numSegs = 2

// isDead reports whether the base's entry of slot i is stale.
func (ix *searchIndex) isDead(i int32) bool {
	return ix.dead != nil && int(i>>6) < len(ix.dead) && ix.dead[i>>6]&(1<<(i&63)) != 0
}

// segOf returns the segment that holds the flag in slot i: 0 the base, 1
// the delta.
func (ix *searchIndex) segOf(i int32) int {
	if i >= ix.baseN || ix.isDead(i) {
		return 1
	}
	return 0
}

// flagState is what one query keeps about one flag; one array of them
// keeps a posting's reads on one cache line.
type flagState struct {
	// mark is the stamp of the last round the flag survived; stamps only
	// grow, so no query clears what the one before it left.
	mark  uint32
	score uint16 // the weights of the words matched so far
	cur   uint16 // the weight of the current word's best match
	langs uint8  // the languages the current word matched in, as bits
	// cnt counts, per language l in its byte l, the query words matched
	// in its text.
	cnt uint32
}

type searchScratch struct {
	st    []flagState
	stamp uint32
	// alive and next are reused candidate lists.
	alive, next []int32
	// tiePos is each flag's place in the total desc, id asc order of the
	// snapshot of serial tieSerial (0: none yet), see tieTable.
	tiePos    []int32
	tieSerial uint64
}

// buildSearch indexes every flag in one segment, the base, from the
// lexicon's words and stems; the scratch of the index before (nil for
// none) carries over.
func buildSearch(flags *flagList, words, stems []string, pool *sync.Pool) *searchIndex {
	n := flags.len()
	ix := &searchIndex{baseN: int32(n), slots: n, baseLex: len(words) + len(stems), scratch: pool}
	ix.seg[0] = buildSegment(words, stems, flags, func(vocab []string, ids func(int32) []uint32) *trie { return buildTrie(n, vocab, ids) })
	nw := make([][NumLangs]uint8, n)
	for i, f := range flags.all() {
		if f != nil {
			ix.n++
			nw[i] = nwordsOf(f)
		}
	}
	ix.nwords = pagedOf(nw)
	ix.countWords()
	if ix.scratch == nil {
		ix.scratch = &sync.Pool{New: func() any { return &searchScratch{} }}
	}
	return ix
}

// buildSegment indexes the flags build reaches: build makes the trie of
// one vocabulary (the lexicon's words, or its stems) from each slot's ids
// in it.
func buildSegment(words, stems []string, flags *flagList, build func(vocab []string, ids func(int32) []uint32) *trie) *segment {
	g := &segment{}
	for l := range int(NumLangs) {
		g.words[l].trie = build(words, func(i int32) []uint32 {
			if f := flags.at(i); f != nil {
				return f.wordsOf(l)
			}
			return nil // a hole
		})
		g.stems[l].trie = build(stems, func(i int32) []uint32 {
			if f := flags.at(i); f != nil {
				return f.stemsOf(l)
			}
			return nil
		})
	}
	return g
}

// nwordsOf is f's number of distinct words per language, at most 255.
func nwordsOf(f *Flag) (n [NumLangs]uint8) {
	for l := range n {
		n[l] = uint8(min(len(f.wordsOf(l)), math.MaxUint8))
	}
	return n
}

// countWords sets perFlag from the live postings of the segments.
func (ix *searchIndex) countWords() {
	if ix.n == 0 {
		return
	}
	for l := range ix.perFlag {
		total := 0
		for _, g := range ix.segs() {
			total += len(g.words[l].all) - len(g.words[l].gone)
		}
		ix.perFlag[l] = (total + ix.n - 1) / ix.n
	}
}

// SearchHit is one search result: a flag, its relevance and, per
// language, the words of its text that matched.
type SearchHit struct {
	Flag *Flag
	// Rank is 1331·E + 121·P + 11·S + T + C/2, rounded to 3 decimals: E,
	// P, S and T count the query's distinct words by their best match in
	// the flag (exact, prefix, stem, typo), C is the share of the flag's
	// words matched (see Snapshot.rank). Higher is more relevant.
	Rank    float64
	Matches [NumLangs][]Match
	slot    int32
}

// Slot is the slot of the hit's flag in the snapshot it was found in
// (Snapshot.At), which every snapshot with the same SearchVersion holds
// it in, with the same texts.
func (h *SearchHit) Slot() int { return int(h.slot) }

// MatchKind is how a word of a flag's text matched a word of the query,
// from the best: exact, prefix, stem, typo.
type MatchKind uint8

// The kinds of match, best first.
const (
	MatchExact MatchKind = iota
	MatchPrefix
	MatchStem
	MatchTypo
	numKinds
)

var matchKindNames = [...]string{"exact", "prefix", "stem", "typo"}

// String is the kind's name in the API: exact, prefix, stem or typo.
func (k MatchKind) String() string { return matchKindNames[k] }

// Match is one matched word of a flag's text in one language: code point
// offsets into Flag.Text[lang], End exclusive.
type Match struct {
	Start, End int
	Kind       MatchKind
}

// FindOptions narrow and page a search: the same filters as ListQuery,
// a language to search alone, and the page.
type FindOptions struct {
	Limit, Offset int
	Category      Category
	HasCategory   bool
	Region        string // "" is the world when HasRegion
	HasRegion     bool
	Dominant      Dominant
	HasDominant   bool
	Lang          Lang // the one language searched when HasLang
	HasLang       bool
}

// keeps reports whether f passes o's filters.
func (o *FindOptions) keeps(f *Flag) bool {
	return (!o.HasCategory || f.Category == o.Category) &&
		(!o.HasRegion || f.Region() == o.Region) &&
		(!o.HasDominant || f.Dominant == o.Dominant)
}

// searches reports whether language l is searched.
func (o *FindOptions) searches(l int) bool { return !o.HasLang || Lang(l) == o.Lang }

// SearchResult is the answer to one query: the best hits, the number of
// flags that matched, and the work it took.
type SearchResult struct {
	Hits  []SearchHit
	Total int
	// Work counts the postings read, the candidate words compared and the
	// trie nodes the typo search visited (the cost SearchBudget bounds),
	// then the matches filtered and ranked (one unit each).
	Work int
	// stemmed and typos have bit i set when the query's word i was also
	// matched by its stems, and with typos (see forgive).
	stemmed, typos uint16
}

// SearchBudget is the most work one query may take over n flags to find
// its matches: half as many units (postings read, words compared, trie
// nodes visited) as there are flags, and at least 20,000. An ordinary
// query takes a few percent of it; one that would need more is refused
// before it starts the step that would pass it. What follows is not
// bounded by it, only by the number m of flags that matched (at most n):
// the filters (m units, counted in Work), the ranking (m units, counted)
// and, for a page past the first MaxSearchLimit hits, a sort of every
// match (m log m comparisons, not counted). So a query's Work is at most
// the budget plus 2m.
func SearchBudget(n int) int { return max(n/2, 20_000) }

// Find finds the flags that match every word of q (see ParseQuery) and
// pass o's filters, ordered as Rank says, and returns the page of
// o.Offset and o.Limit, with the matched words of each hit, and the
// number of flags that matched.
//
// A word matches a word of a flag's text in one of four ways, from the
// best: exact (the same folded word), prefix (the query word starts it;
// see ParseQuery for which words match as prefixes), stem (the Snowball
// stems of the text's language are equal, see Stem) and typo (within
// MaxTypos edits of the text's word or, for a prefix word, of a prefix of
// it). Stem and typo matches are sought within a budget of their own
// (see forgive).
//
// The words are taken cheapest first: the cheapest one's postings give the
// candidates, and each further word either reads its postings or checks
// the candidates' own words, whichever costs less. A query whose work
// would pass SearchBudget is refused with a *QueryError before it passes
// it.
func (s *Snapshot) Find(q Query, o FindOptions) (SearchResult, error) {
	if o.Limit < 1 || o.Offset < 0 {
		return SearchResult{}, nil
	}
	m, err := s.Match(q, o)
	if err != nil {
		return SearchResult{Work: m.Work}, err
	}
	res := m.Page(s, o)
	res.Work += m.Work
	res.stemmed, res.typos = m.stemmed, m.typos
	return res, nil
}

// MaxSearchLimit is the most hits one search returns.
const MaxSearchLimit = 50
