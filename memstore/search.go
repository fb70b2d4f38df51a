package memstore

import (
	"math"
	"sync"
)

// searchIndex holds, per language, a prefix trie of the folded words and
// one of the stems of the flags of one snapshot, indexed by the flags'
// position in the id-ordered slice.
type searchIndex struct {
	tries [NumLangs]*trie
	stems [NumLangs]*trie
	n     int
	// perFlag is each language's mean number of words per flag: what
	// checking one candidate's own words costs.
	perFlag [NumLangs]int
	// nwords is, per flag and language, its number of distinct words (at
	// most 255): the denominator of the share of its words matched.
	nwords  [][NumLangs]uint8
	scratch sync.Pool
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
	// snapshot of generation tieGen (0: none yet).
	tiePos []int32
	tieGen uint64
}

func buildSearch(flags *paged[*Flag], lx *lexicon) *searchIndex {
	n := flags.len()
	ix := &searchIndex{n: n, nwords: make([][NumLangs]uint8, n)}
	for l := range ix.tries {
		ix.tries[l] = buildTrie(n, lx.words, func(i int) []uint32 { return flags.at(int32(i)).wordsOf(l) })
		ix.stems[l] = buildTrie(n, lx.stems.words, func(i int) []uint32 { return flags.at(int32(i)).stemsOf(l) })
		if n > 0 {
			ix.perFlag[l] = (len(ix.tries[l].all) + n - 1) / n
		}
		for i, f := range flags.all() {
			ix.nwords[i][l] = uint8(min(len(f.wordsOf(l)), math.MaxUint8))
		}
	}
	ix.scratch.New = func() any { return &searchScratch{st: make([]flagState, n)} }
	return ix
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
}

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
		(!o.HasRegion || f.Region == o.Region) &&
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
	var res SearchResult
	ix := s.search
	if len(q.words) == 0 || ix == nil || ix.n == 0 || o.Limit < 1 || o.Offset < 0 {
		return res, nil
	}
	budget := SearchBudget(ix.n)
	plans := ix.plan(q, &o)
	ix.forgive(plans, &o, budget, &res)
	for i := range plans {
		if plans[i].postings == 0 {
			return res, nil // a word no flag has: nothing matches
		}
	}
	sc := ix.scratch.Get().(*searchScratch)
	defer ix.scratch.Put(sc)
	alive, err := s.rounds(sc, plans, budget, &res)
	if err != nil || len(alive) == 0 {
		return SearchResult{Work: res.Work}, err
	}
	alive = s.filter(alive, &o, &res)
	res.Work += len(alive)
	res.Total = len(alive)
	if o.Offset < len(alive) {
		hits, pos := s.top(sc, alive, o.Offset+o.Limit)
		res.Hits = hits[o.Offset:]
		s.matches(sc, res.Hits, pos[o.Offset:], plans, &o)
	}
	return res, nil
}

// filter keeps the candidates that pass o's filters.
func (s *Snapshot) filter(alive []int32, o *FindOptions, res *SearchResult) []int32 {
	if !o.HasCategory && !o.HasRegion && !o.HasDominant {
		return alive
	}
	res.Work += len(alive)
	kept := alive[:0]
	for _, f := range alive {
		if o.keeps(s.flags.at(f)) {
			kept = append(kept, f)
		}
	}
	return kept
}

// MaxSearchLimit is the most hits one search returns.
const MaxSearchLimit = 50
