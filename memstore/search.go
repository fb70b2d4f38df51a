package memstore

import (
	"math"
	"sync"
	"unicode/utf8"
)

// searchIndex holds one prefix trie per language over the flags of one
// snapshot, indexed by the flags' position in the id-ordered slice.
type searchIndex struct {
	tries   [NumLangs]*trie
	n       int
	scratch sync.Pool
}

type searchScratch struct {
	mark  []uint16
	score []float32
	cur   []float32
	// touched, alive and next are reused candidate lists.
	touched, alive, next []int32
}

func buildSearch(flags []*Flag, lx *lexicon) *searchIndex {
	ix := &searchIndex{n: len(flags)}
	for l := range ix.tries {
		ix.tries[l] = buildTrie(len(flags), lx.words, func(i int) []uint32 { return flags[i].wordsOf(l) })
	}
	n := len(flags)
	ix.scratch.New = func() any {
		return &searchScratch{mark: make([]uint16, n), score: make([]float32, n), cur: make([]float32, n)}
	}
	return ix
}

// SearchHit is one search result: a flag and its relevance.
type SearchHit struct {
	Flag *Flag
	Rank float64
}

// wordScore rates how well query word q matches vocabulary word w, which
// starts with q: 1 for the whole word, less the more of w is left over.
func wordScore(q, w string) float32 {
	if len(q) == len(w) {
		return 1
	}
	return 0.5 + 0.5*float32(utf8.RuneCountInString(q))/float32(utf8.RuneCountInString(w))
}

// maxQueryWords bounds the words of one query (mark is a uint16 counter).
const maxQueryWords = 64

// Search finds the flags that have, for every word of q, a word starting
// with it (in any language), ranked by rank desc, total desc, id asc; it
// returns at most limit hits and the number of flags that matched.
func (s *Snapshot) Search(q string, limit int) ([]SearchHit, int) {
	words := Words(q)
	if len(words) == 0 || s.search == nil || s.search.n == 0 {
		return nil, 0
	}
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	ix := s.search
	sc := ix.scratch.Get().(*searchScratch)
	defer ix.scratch.Put(sc)

	touched, alive := sc.touched[:0], sc.alive[:0]
	next := sc.next[:0]
	defer func() { sc.touched, sc.alive, sc.next = touched[:0], alive[:0], next[:0] }()
	for i, w := range words {
		round := uint16(i)
		for _, t := range ix.tries {
			lo, hi := t.prefixRange(w)
			for v := lo; v < hi; v++ {
				ws := wordScore(w, t.vocab[v])
				for _, f := range t.postings[v] {
					switch sc.mark[f] {
					case round:
						if i == 0 {
							touched = append(touched, f)
						}
						sc.mark[f] = round + 1
						sc.cur[f] = ws
					case round + 1:
						if ws > sc.cur[f] {
							sc.cur[f] = ws
						}
					}
				}
			}
		}
		src := touched
		if i > 0 {
			src = alive
		}
		next = next[:0]
		for _, f := range src {
			if sc.mark[f] == round+1 {
				sc.score[f] += sc.cur[f]
				next = append(next, f)
			}
		}
		alive, next = next, alive
		if len(alive) == 0 {
			break
		}
	}

	top := make([]SearchHit, 0, min(limit, len(alive)))
	for _, f := range alive {
		h := SearchHit{Flag: s.flags[f], Rank: math.Round(float64(sc.score[f])*1000) / 1000}
		top = insertTop(top, h, limit)
	}
	for _, f := range touched {
		sc.mark[f], sc.score[f], sc.cur[f] = 0, 0, 0
	}
	return top, len(alive)
}

// better orders hits: rank desc, total desc, id asc.
func better(a, b SearchHit) bool {
	if a.Rank != b.Rank {
		return a.Rank > b.Rank
	}
	if at, bt := a.Flag.Total(), b.Flag.Total(); at != bt {
		return at > bt
	}
	return a.Flag.ID < b.Flag.ID
}

// insertTop keeps top sorted and at most limit long.
func insertTop(top []SearchHit, h SearchHit, limit int) []SearchHit {
	if len(top) == limit && !better(h, top[len(top)-1]) {
		return top
	}
	i := len(top)
	for i > 0 && better(h, top[i-1]) {
		i--
	}
	if len(top) < limit {
		top = append(top, SearchHit{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = h
	return top
}
