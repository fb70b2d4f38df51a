package memstore

import (
	"slices"
	"strings"
)

// trie is a byte-wise prefix trie over one language's folded vocabulary.
// Each node knows the range [lo, hi) of the sorted vocabulary that starts
// with its prefix, so a prefix lookup is a walk of len(prefix) steps, and
// the number of postings under a prefix is off[hi] - off[lo]: a search
// knows what a word costs before it reads a posting.
type trie struct {
	// The vocabulary: sorted, unique folded words, one after the other in
	// text, word v ending at ends[v] (see word). One string and an array
	// of offsets, not a string header a word: the collector scans neither.
	text string
	ends []uint32
	// The postings of word v are all[off[v]:off[v+1]]: ascending flag
	// indices, every word's in one array.
	all []int32
	off []int32
	// pos maps a lexicon id to its index in vocab, or -1: a flag's own
	// word ids tell in one step whether it has a word in a range. A
	// sparse trie (see buildSparseTrie) maps them in sparse instead.
	pos    []int32
	sparse map[uint32]int32
	nodes  []trieNode
	edges  []trieEdge // each node's children, contiguous, ordered by byte
}

type trieNode struct {
	lo, hi         int32 // the vocabulary range under this prefix
	edgeLo, edgeHi int32 // the node's children in edges
}

type trieEdge struct {
	b    byte
	node int32
}

// buildTrie indexes words: wordsOf(i) returns the ids (in lexicon) of
// the unique folded words of the flag in slot i in this language, nil for
// a hole. It indexes the slots [0, n).
func buildTrie(n int, lexicon []string, wordsOf func(i int32) []uint32) *trie {
	// Count first, then fill one array: no posting list grows, and the
	// collector sees one object instead of one per word.
	counts := make([]int32, len(lexicon))
	total := 0
	for i := range int32(n) {
		for _, w := range wordsOf(i) {
			counts[w]++
			total++
		}
	}
	var ids []uint32
	for id, c := range counts {
		if c > 0 {
			ids = append(ids, uint32(id))
		}
	}
	t := &trie{pos: make([]int32, len(lexicon))}
	for i := range t.pos {
		t.pos[i] = -1
	}
	next := t.fillVocab(ids, lexicon, total, func(id uint32) int32 { return counts[id] },
		func(id uint32, k int32) { t.pos[id] = k })
	for i := range int32(n) {
		for _, w := range wordsOf(i) {
			t.all[next[t.pos[w]]] = i
			next[t.pos[w]]++
		}
	}
	t.nodes = []trieNode{{lo: 0, hi: t.size()}}
	t.fill(0, 0)
	return t
}

// buildSparseTrie is buildTrie over the slots given, ascending, a few of
// many: what it allocates follows the words of these flags, not the
// lexicon's size. Its lexicon ids map to the vocabulary through a map.
func buildSparseTrie(slots []int32, lexicon []string, wordsOf func(i int32) []uint32) *trie {
	counts := map[uint32]int32{}
	total := 0
	for _, i := range slots {
		for _, w := range wordsOf(i) {
			counts[w]++
			total++
		}
	}
	ids := make([]uint32, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	t := &trie{sparse: make(map[uint32]int32, len(ids))}
	next := t.fillVocab(ids, lexicon, total, func(id uint32) int32 { return counts[id] },
		func(id uint32, k int32) { t.sparse[id] = k })
	for _, i := range slots {
		for _, w := range wordsOf(i) {
			k := t.sparse[w]
			t.all[next[k]] = i
			next[k]++
		}
	}
	t.nodes = []trieNode{{lo: 0, hi: t.size()}}
	t.fill(0, 0)
	return t
}

// fillVocab sorts ids by their words into the vocabulary, lays out the
// postings' offsets from each word's count, and tells at each id its
// place; it returns, per place, where the next posting of its word goes.
func (t *trie) fillVocab(ids []uint32, lexicon []string, total int, count func(uint32) int32, place func(id uint32, k int32)) []int32 {
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(lexicon[a], lexicon[b]) })
	t.ends, t.off, t.all = make([]uint32, len(ids)), make([]int32, len(ids)+1), make([]int32, total)
	n := 0
	for _, id := range ids {
		n += len(lexicon[id])
	}
	var text strings.Builder
	text.Grow(n)
	next := make([]int32, len(ids))
	at := int32(0)
	for k, id := range ids {
		text.WriteString(lexicon[id])
		t.ends[k] = uint32(text.Len())
		place(id, int32(k))
		t.off[k], next[k] = at, at
		at += count(id)
	}
	t.off[len(ids)] = at
	t.text = text.String()
	return next
}

// size is the number of words in the vocabulary.
func (t *trie) size() int32 { return int32(len(t.ends)) }

// word returns vocabulary word v (0 <= v < size).
func (t *trie) word(v int32) string {
	lo := uint32(0)
	if v > 0 {
		lo = t.ends[v-1]
	}
	return t.text[lo:t.ends[v]]
}

// vocabOf returns the place in the vocabulary of the word with lexicon
// id id, or -1 where no flag indexed has it.
func (t *trie) vocabOf(id uint32) int32 {
	if t.sparse != nil {
		if k, ok := t.sparse[id]; ok {
			return k
		}
		return -1
	}
	if int(id) < len(t.pos) {
		return t.pos[id]
	}
	return -1
}

// postings returns the flags that have vocabulary word v.
func (t *trie) postings(v int32) []int32 { return t.all[t.off[v]:t.off[v+1]] }

// fill creates the children of node, whose prefix has length depth.
func (t *trie) fill(node int32, depth int) {
	lo, hi := t.nodes[node].lo, t.nodes[node].hi
	i := lo
	for i < hi && len(t.word(i)) == depth {
		i++ // the word equal to the prefix sorts first
	}
	var children []trieEdge
	for i < hi {
		b := t.word(i)[depth]
		j := i
		for j < hi && t.word(j)[depth] == b {
			j++
		}
		t.nodes = append(t.nodes, trieNode{lo: i, hi: j})
		child := int32(len(t.nodes) - 1)
		children = append(children, trieEdge{b: b, node: child})
		t.fill(child, depth+1)
		i = j
	}
	t.nodes[node].edgeLo = int32(len(t.edges))
	t.edges = append(t.edges, children...)
	t.nodes[node].edgeHi = int32(len(t.edges))
}

// prefixRange returns the range of vocabulary words starting with p.
func (t *trie) prefixRange(p string) (lo, hi int32) {
	n := int32(0)
	for i := 0; i < len(p); i++ {
		cs := t.edges[t.nodes[n].edgeLo:t.nodes[n].edgeHi]
		k, ok := slices.BinarySearchFunc(cs, p[i], func(e trieEdge, b byte) int { return int(e.b) - int(b) })
		if !ok {
			return 0, 0
		}
		n = cs[k].node
	}
	return t.nodes[n].lo, t.nodes[n].hi
}

// wordRange returns the range holding exactly the word w, or an empty one.
func (t *trie) wordRange(w string) (lo, hi int32) {
	lo, hi = t.prefixRange(w)
	if lo < hi && t.word(lo) == w {
		return lo, lo + 1
	}
	return 0, 0
}

// cost is the number of postings of the words in [lo, hi).
func (t *trie) cost(lo, hi int32) int { return int(t.off[hi] - t.off[lo]) }
