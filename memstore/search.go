package memstore

import (
	"math"
	"slices"
	"sync"
)

// searchIndex holds one prefix trie per language over the flags of one
// snapshot, indexed by the flags' position in the id-ordered slice.
type searchIndex struct {
	tries [NumLangs]*trie
	n     int
	// perFlag is each language's mean number of words per flag: what
	// checking one candidate's own words costs.
	perFlag [NumLangs]int
	scratch sync.Pool
}

type searchScratch struct {
	// mark[f] is the stamp of the last round flag f survived; stamps only
	// grow, so no query clears what the one before it left.
	mark  []uint32
	stamp uint32
	score []float32
	cur   []float32
	// alive and next are reused candidate lists.
	alive, next []int32
	// tiePos is each flag's place in the total desc, id asc order of the
	// snapshot of generation tieGen (0: none yet).
	tiePos []int32
	tieGen uint64
}

func buildSearch(flags []*Flag, lx *lexicon) *searchIndex {
	ix := &searchIndex{n: len(flags)}
	for l := range ix.tries {
		ix.tries[l] = buildTrie(len(flags), lx.words, func(i int) []uint32 { return flags[i].wordsOf(l) })
		if len(flags) > 0 {
			ix.perFlag[l] = (len(ix.tries[l].all) + len(flags) - 1) / len(flags)
		}
	}
	n := len(flags)
	ix.scratch.New = func() any {
		return &searchScratch{mark: make([]uint32, n), score: make([]float32, n), cur: make([]float32, n)}
	}
	return ix
}

// SearchHit is one search result: a flag and its relevance.
type SearchHit struct {
	Flag *Flag
	Rank float64
}

// SearchResult is the answer to one query: the best hits, the number of
// flags that matched, and the work it took.
type SearchResult struct {
	Hits  []SearchHit
	Total int
	// Work counts the postings read, the candidate words compared and the
	// matches ranked: the cost SearchBudget bounds.
	Work int
}

// wordScore rates how well a query word of q code points matches a
// vocabulary word of w code points that starts with it: 1 for the whole
// word, less the more of the word is left over.
func wordScore(q, w int) float32 {
	if q == w {
		return 1
	}
	return 0.5 + 0.5*float32(q)/float32(w)
}

// span is the vocabulary range of one query word in one language.
type span struct{ lo, hi int32 }

// plan is one query word resolved against the index.
type plan struct {
	w      *QueryWord
	spans  [NumLangs]span
	union  int // the cost of reading its postings
	nWords int // vocabulary words in its spans
}

// SearchBudget is the most work one query may take over n flags: half as
// many units (postings read, words compared, matches ranked) as there are
// flags, and at least 20,000. An ordinary query takes a few percent of
// it; one that would need more is refused before it starts the step that
// would pass it, so no query does more.
func SearchBudget(n int) int { return max(n/2, 20_000) }

// Search is Find for a query string, with no error: a query the rules
// refuse finds nothing.
func (s *Snapshot) Search(q string, limit int) ([]SearchHit, int) {
	pq, err := ParseQuery(q)
	if err != nil {
		return nil, 0
	}
	r, err := s.Find(pq, limit)
	if err != nil {
		return nil, 0
	}
	return r.Hits, r.Total
}

// Find finds the flags that match every word of q (see ParseQuery),
// ranked by rank desc, total desc, id asc; it returns at most limit hits
// and the number of flags that matched. The words are taken cheapest
// first: the cheapest one's postings give the candidates, and each further
// word either reads its postings or checks the candidates' own words,
// whichever costs less. A query whose work would pass SearchBudget is
// refused with a *QueryError before it passes it.
func (s *Snapshot) Find(q Query, limit int) (SearchResult, error) {
	var res SearchResult
	ix := s.search
	if len(q.words) == 0 || ix == nil || ix.n == 0 || limit < 1 {
		return res, nil
	}
	budget := SearchBudget(ix.n)
	plans := make([]plan, len(q.words))
	for i := range q.words {
		p := &plans[i]
		p.w = &q.words[i]
		for l, t := range ix.tries {
			var lo, hi int32
			if p.w.Prefix {
				lo, hi = t.prefixRange(p.w.Text)
			} else {
				lo, hi = t.wordRange(p.w.Text)
			}
			p.spans[l] = span{lo, hi}
			p.union += t.cost(lo, hi)
			p.nWords += int(hi - lo)
		}
		if p.union == 0 {
			return res, nil // a word no flag has: nothing matches
		}
	}
	slices.SortStableFunc(plans, func(a, b plan) int { return a.union + a.nWords - b.union - b.nWords })

	sc := ix.scratch.Get().(*searchScratch)
	defer ix.scratch.Put(sc)
	if sc.stamp > math.MaxUint32-2*MaxQueryWords {
		clear(sc.mark)
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
		union := p.union + p.nWords
		// The matches left are ranked at the end: at most the postings
		// read in round 0, at most the candidates after it.
		rank := len(alive)
		if r == 0 {
			rank = p.union
		}
		if r == 0 || union <= verify {
			if res.Work+union+rank > budget {
				return SearchResult{Work: res.Work}, errTooBroad()
			}
			res.Work += union
			alive, next = ix.unionRound(sc, p, r, stamp, alive, next)
		} else {
			if res.Work+verify+rank > budget {
				return SearchResult{Work: res.Work}, errTooBroad()
			}
			res.Work += verify
			alive, next = s.verifyRound(sc, p, stamp, alive, next)
		}
		if len(alive) == 0 {
			return res, nil
		}
	}
	res.Work += len(alive)
	res.Total = len(alive)
	res.Hits = s.top(sc, alive, limit)
	return res, nil
}

// MaxSearchLimit is the most hits one search returns.
const MaxSearchLimit = 50
