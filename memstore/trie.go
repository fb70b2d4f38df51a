package memstore

import (
	"slices"
	"sort"
)

// trie is a byte-wise prefix trie over one language's folded vocabulary.
// Each node knows the range [lo, hi) of the sorted vocabulary that starts
// with its prefix, so a prefix lookup is a walk of len(prefix) steps, and
// the number of postings under a prefix is off[hi] - off[lo]: a search
// knows what a word costs before it reads a posting.
type trie struct {
	vocab []string // sorted, unique folded words
	// The postings of word v are all[off[v]:off[v+1]]: ascending flag
	// indices, every word's in one array.
	all []int32
	off []int32
	// pos maps a lexicon id to its index in vocab, or -1: a flag's own
	// word ids tell in one step whether it has a word in a range.
	pos   []int32
	nodes []trieNode
	edges []trieEdge // each node's children, contiguous, ordered by byte
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
// the unique folded words of flag i in this language.
func buildTrie(n int, lexicon []string, wordsOf func(i int) []uint32) *trie {
	// Count first, then fill one array: no posting list grows, and the
	// collector sees one object instead of one per word.
	counts := make([]int32, len(lexicon))
	total := 0
	for i := 0; i < n; i++ {
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
	sort.Slice(ids, func(a, b int) bool { return lexicon[ids[a]] < lexicon[ids[b]] })
	t := &trie{vocab: make([]string, len(ids)), off: make([]int32, len(ids)+1),
		all: make([]int32, total), pos: make([]int32, len(lexicon))}
	for i := range t.pos {
		t.pos[i] = -1
	}
	next := counts // reused: the next free position of each word's list
	at := int32(0)
	for k, id := range ids {
		t.vocab[k] = lexicon[id]
		t.pos[id] = int32(k)
		c := next[id]
		t.off[k] = at
		next[id] = at
		at += c
	}
	t.off[len(ids)] = at
	for i := 0; i < n; i++ {
		for _, w := range wordsOf(i) {
			t.all[next[w]] = int32(i)
			next[w]++
		}
	}
	t.nodes = []trieNode{{lo: 0, hi: int32(len(t.vocab))}}
	t.fill(0, 0)
	return t
}

// postings returns the flags that have vocabulary word v.
func (t *trie) postings(v int32) []int32 { return t.all[t.off[v]:t.off[v+1]] }

// fill creates the children of node, whose prefix has length depth.
func (t *trie) fill(node int32, depth int) {
	lo, hi := t.nodes[node].lo, t.nodes[node].hi
	i := lo
	for i < hi && len(t.vocab[i]) == depth {
		i++ // the word equal to the prefix sorts first
	}
	var children []trieEdge
	for i < hi {
		b := t.vocab[i][depth]
		j := i
		for j < hi && t.vocab[j][depth] == b {
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
	if lo < hi && t.vocab[lo] == w {
		return lo, lo + 1
	}
	return 0, 0
}

// cost is the number of postings of the words in [lo, hi).
func (t *trie) cost(lo, hi int32) int { return int(t.off[hi] - t.off[lo]) }
