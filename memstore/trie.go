package memstore

import (
	"slices"
	"sort"
)

// trie is a byte-wise prefix trie over one language's folded vocabulary.
// Each node knows the range [lo, hi) of the sorted vocabulary that starts
// with its prefix, so a prefix lookup is a walk of len(prefix) steps.
type trie struct {
	vocab    []string  // sorted, unique folded words
	postings [][]int32 // per word: ascending flag indices
	nodes    []trieNode
}

type trieNode struct {
	lo, hi   int32
	children []trieEdge
}

type trieEdge struct {
	b    byte
	node int32
}

// buildTrie indexes words: wordsOf(i) returns the ids (in lexicon) of
// the unique folded words of flag i in this language.
func buildTrie(n int, lexicon []string, wordsOf func(i int) []uint32) *trie {
	post := map[uint32][]int32{}
	for i := 0; i < n; i++ {
		for _, w := range wordsOf(i) {
			post[w] = append(post[w], int32(i))
		}
	}
	ids := make([]uint32, 0, len(post))
	for id := range post {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return lexicon[ids[a]] < lexicon[ids[b]] })
	t := &trie{vocab: make([]string, len(ids)), postings: make([][]int32, len(ids))}
	for i, id := range ids {
		t.vocab[i] = lexicon[id]
		t.postings[i] = slices.Clip(post[id])
	}
	t.nodes = []trieNode{{lo: 0, hi: int32(len(t.vocab))}}
	t.fill(0, 0)
	return t
}

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
	t.nodes[node].children = children
}

// prefixRange returns the range of vocabulary words starting with p.
func (t *trie) prefixRange(p string) (lo, hi int32) {
	n := int32(0)
	for i := 0; i < len(p); i++ {
		cs := t.nodes[n].children
		k, ok := slices.BinarySearchFunc(cs, p[i], func(e trieEdge, b byte) int { return int(e.b) - int(b) })
		if !ok {
			return 0, 0
		}
		n = cs[k].node
	}
	return t.nodes[n].lo, t.nodes[n].hi
}
