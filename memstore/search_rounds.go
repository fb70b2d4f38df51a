package memstore

import "math"

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
