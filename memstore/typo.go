package memstore

import "unicode/utf8"

// MaxTypos is the number of typos a query word of n code points (after
// folding) may have: none under 5, one from 5, two from 9. A typo is the
// insertion, deletion or substitution of one code point, or the swap of
// two neighbours (the optimal string alignment distance).
func MaxTypos(n int) int {
	switch {
	case n >= 9:
		return 2
	case n >= 5:
		return 1
	}
	return 0
}

// typoWalk finds the words of a trie within k typos of a query word: a
// depth-first walk over the trie's nodes that keeps, per depth, the row
// of the distance table of the node's prefix against the query, and
// leaves a branch once every cell of its row is over k. The first node
// whose prefix is within k of the whole query word takes its whole
// subtree: every word with typos is a prefix word (ParseQuery makes every
// word of two letters or more one, and typos start at five), so the words
// that start within k of it match.
type typoWalk struct {
	t      *trie
	q      []rune
	k      int
	rows   [][]int32 // rows[d]: the prefix of d code points against q
	path   []rune    // path[d-1]: the code point at depth d
	out    []span
	visits int // nodes visited: the walk's work
	limit  int // the most visits; past it the walk stops
}

func newTypoWalk(t *trie, q string, limit int) *typoWalk {
	w := &typoWalk{t: t, q: []rune(q), limit: limit}
	w.k = MaxTypos(len(w.q))
	depth := len(w.q) + w.k + 1
	cells := make([]int32, (depth+1)*(len(w.q)+1))
	w.rows = make([][]int32, depth+1)
	for d := range w.rows {
		w.rows[d] = cells[d*(len(w.q)+1) : (d+1)*(len(w.q)+1)]
	}
	for j := range w.rows[0] {
		w.rows[0][j] = int32(j)
	}
	w.path = make([]rune, depth)
	return w
}

// reset readies w for a walk over t with at most limit visits.
func (w *typoWalk) reset(t *trie, limit int) {
	w.t, w.limit, w.visits, w.out = t, limit, 0, w.out[:0]
}

// run walks the trie; it reports false when the walk passed its limit
// (what it found is then incomplete).
func (w *typoWalk) run() bool {
	if w.k == 0 || len(w.t.nodes) == 0 {
		return true
	}
	return w.walk(0, 0, 0, [utf8.UTFMax]byte{})
}

// walk visits the children of node, whose prefix has depth code points;
// pend[:np] holds the bytes of a code point not yet complete.
func (w *typoWalk) walk(node int32, depth, np int, pend [utf8.UTFMax]byte) bool {
	nd := w.t.nodes[node]
	for _, e := range w.t.edges[nd.edgeLo:nd.edgeHi] {
		if w.visits >= w.limit {
			return false
		}
		w.visits++
		b := pend
		b[np] = e.b
		if np+1 < utf8.UTFMax && !utf8.FullRune(b[:np+1]) {
			if !w.walk(e.node, depth, np+1, b) {
				return false
			}
			continue
		}
		r, _ := utf8.DecodeRune(b[:np+1])
		if depth+1 >= len(w.rows) {
			continue
		}
		best := w.step(depth+1, r)
		row := w.rows[depth+1]
		d := int(row[len(w.q)])
		child := w.t.nodes[e.node]
		if d <= w.k {
			if d > 0 {
				w.out = append(w.out, span{child.lo, child.hi})
			}
			continue // the subtree is taken (or is the prefix itself)
		}
		if best <= w.k && !w.walk(e.node, depth+1, 0, pend) {
			return false
		}
	}
	return true
}

// step fills the row of depth d, whose last code point is r, and returns
// its least cell.
func (w *typoWalk) step(d int, r rune) int {
	w.path[d-1] = r
	prev, row := w.rows[d-1], w.rows[d]
	row[0] = int32(d)
	best := d
	for j := 1; j < len(row); j++ {
		cost := int32(1)
		if w.q[j-1] == r {
			cost = 0
		}
		v := min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
		if d >= 2 && j >= 2 && w.q[j-1] == w.path[d-2] && w.q[j-2] == r {
			v = min(v, w.rows[d-2][j-2]+1)
		}
		row[j] = v
		best = min(best, int(v))
	}
	return best
}
