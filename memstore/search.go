package memstore

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
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

// checkCost is what checking one candidate's words against p costs.
func (ix *searchIndex) checkCost(p *plan) int {
	c := 4 // reaching the flag
	for l, sp := range p.spans {
		if sp.lo < sp.hi {
			c += ix.perFlag[l]
		}
	}
	return c
}

// unionRound reads the postings of p. In round 0 every flag found becomes
// a candidate; later, only candidates found again survive.
func (ix *searchIndex) unionRound(sc *searchScratch, p *plan, r int, stamp uint32, alive, next []int32) ([]int32, []int32) {
	prev := stamp - 1
	qr := p.w.runes
	for l, t := range ix.tries {
		sp := p.spans[l]
		for v := sp.lo; v < sp.hi; v++ {
			ws := wordScore(qr, int(t.runes[v]))
			for _, f := range t.postings(v) {
				switch m := sc.mark[f]; {
				case m == stamp:
					if ws > sc.cur[f] {
						sc.cur[f] = ws
					}
				case r == 0 || m == prev:
					if r == 0 {
						alive = append(alive, f)
					}
					sc.mark[f] = stamp
					sc.cur[f] = ws
				}
			}
		}
	}
	if r == 0 {
		for _, f := range alive {
			sc.score[f] = sc.cur[f]
		}
		return alive, next
	}
	next = next[:0]
	for _, f := range alive {
		if sc.mark[f] == stamp {
			sc.score[f] += sc.cur[f]
			next = append(next, f)
		}
	}
	return next, alive
}

// verifyRound keeps the candidates that have a word in p's spans, read
// from each candidate's own words.
func (s *Snapshot) verifyRound(sc *searchScratch, p *plan, stamp uint32, alive, next []int32) ([]int32, []int32) {
	ix := s.search
	qr := p.w.runes
	next = next[:0]
	for _, f := range alive {
		fl := s.flags[f]
		best := float32(0)
		for l, t := range ix.tries {
			sp := p.spans[l]
			if sp.lo >= sp.hi {
				continue
			}
			for _, id := range fl.wordsOf(l) {
				if int(id) >= len(t.pos) {
					continue
				}
				if v := t.pos[id]; v >= sp.lo && v < sp.hi {
					best = max(best, wordScore(qr, int(t.runes[v])))
				}
			}
		}
		if best > 0 {
			sc.mark[f] = stamp
			sc.score[f] += best
			next = append(next, f)
		}
	}
	return next, alive
}

// top returns the best limit hits of alive: rank desc, total desc, id asc.
func (s *Snapshot) top(sc *searchScratch, alive []int32, limit int) []SearchHit {
	type cand struct {
		rank float64
		f    int32
	}
	// Ties on rank are broken by place in the total desc, id asc order;
	// reading it from each flag is a memory access per flag, so a large
	// set reads it from a per-snapshot table instead.
	if len(alive) > 4096 && (sc.tieGen != s.Gen || len(sc.tiePos) != len(s.flags)) {
		if len(sc.tiePos) != len(s.flags) {
			sc.tiePos = make([]int32, len(s.flags))
		}
		for i, f := range s.orders[listAll][SortTotal][1] {
			sc.tiePos[f] = int32(i)
		}
		sc.tieGen = s.Gen
	}
	table := sc.tieGen == s.Gen && len(sc.tiePos) == len(s.flags)
	tie := func(f int32) int64 {
		if table {
			return int64(sc.tiePos[f])
		}
		return -s.flags[f].Total()<<32 | int64(f)
	}
	top := make([]cand, 0, min(limit, len(alive)))
	ties := make([]int64, 0, cap(top))
	for _, f := range alive {
		rank := math.Round(float64(sc.score[f])*1000) / 1000
		n := len(top)
		if n == limit && rank < top[n-1].rank {
			continue
		}
		t := tie(f)
		if n == limit && rank == top[n-1].rank && t > ties[n-1] {
			continue
		}
		i := n
		for i > 0 && (rank > top[i-1].rank || rank == top[i-1].rank && t < ties[i-1]) {
			i--
		}
		if n < limit {
			top, ties = append(top, cand{}), append(ties, 0)
		}
		copy(top[i+1:], top[i:len(top)-1])
		copy(ties[i+1:], ties[i:len(ties)-1])
		top[i], ties[i] = cand{rank, f}, t
	}
	hits := make([]SearchHit, len(top))
	for i, c := range top {
		hits[i] = SearchHit{Flag: s.flags[c.f], Rank: c.rank}
	}
	return hits
}

// MaxSearchLimit is the most hits one search returns.
const MaxSearchLimit = 50

// MaxQueryWords is the most distinct words one query may have.
const MaxQueryWords = 10

// QueryWord is one distinct word of a query.
type QueryWord struct {
	Text   string // folded
	Prefix bool   // matches the words it starts; otherwise only itself
	runes  int
}

// Query is a search query as the index takes it: its distinct folded
// words, in the order they first appear.
type Query struct {
	words []QueryWord
}

// QueryError says why a query is refused.
type QueryError struct{ Detail string }

func (e *QueryError) Error() string { return e.Detail }

func errTooBroad() error {
	return &QueryError{Detail: "q is too broad to search: its words together match too many words of too many flags " +
		"(the work of one search is bounded); use longer or fewer words"}
}

// ParseQuery splits q into its folded words (Words) and applies the
// rules that bound a search's cost:
//
//   - a word given more than once counts once;
//   - at most MaxQueryWords distinct words;
//   - the last word matches as a prefix, and so does every other word of
//     two letters or more; a one-letter word that is not the last matches
//     only itself (the word "a", not every word starting with a);
//   - a query with words must have one of at least two letters.
//
// A query with no word at all is valid and finds nothing.
func ParseQuery(q string) (Query, error) {
	ws := Words(q)
	var out Query
	longest := 0
	for i, w := range ws {
		n := utf8.RuneCountInString(w)
		last := i == len(ws)-1
		k := slices.IndexFunc(out.words, func(x QueryWord) bool { return x.Text == w })
		if k >= 0 {
			out.words[k].Prefix = out.words[k].Prefix || last
			continue
		}
		if len(out.words) == MaxQueryWords {
			return Query{}, &QueryError{Detail: "q has more than 10 different words; a search takes at most 10"}
		}
		out.words = append(out.words, QueryWord{Text: w, Prefix: last || n >= 2, runes: n})
		longest = max(longest, n)
	}
	if len(out.words) > 0 && longest < 2 {
		return Query{}, &QueryError{Detail: "q must have a word of at least 2 letters: single letters only narrow a search beside a longer word"}
	}
	return out, nil
}

// Key is the query in a canonical form: two queries with the same key
// find the same flags with the same ranks, whatever their separators,
// case, diacritics, word order or repeated words.
func (q Query) Key() string {
	keys := make([]string, len(q.words))
	for i, w := range q.words {
		keys[i] = w.Text
		if w.Prefix {
			keys[i] += "*"
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}
