package memstore

import (
	"strings"
	"unsafe"
)

// The lexicon is shared from one snapshot to the next, so that a tick
// numbers only the words it has not seen; but then it keeps the words of
// every text ever read: of flags removed, of texts replaced, of builds
// that failed. compactLexicon bounds it.

// lexiconSlack is the share of unused words (and stems) a lexicon may
// hold, as a divisor of the words in use: past a sixteenth more, the
// next build whose texts changed starts a fresh one. A compaction costs
// about what the search index it precedes costs (a pass over every
// flag's words), and happens only after a sixteenth of the words in use
// were added since the last.
const lexiconSlack = 16

// compactLexicon gives s a lexicon of the words and stems its flags use
// when the shared one holds more than a sixteenth more of either. Every
// flag then becomes a new Flag value, its words renumbered in the new
// lexicon; prev's flags keep the old one, which s no longer shares.
func (s *Snapshot) compactLexicon() {
	old := s.lexicon
	words := make([]int32, len(old.words))
	stems := make([]int32, len(old.stems.words))
	nw, ns, total := 0, 0, 0
	for f := range s.Flags() {
		split := int(f.wordEnd[NumLangs-1])
		for k, id := range f.words() {
			m, n := words, &nw
			if k >= split {
				m, n = stems, &ns
			}
			if m[id] == 0 {
				*n++
				m[id] = -1
			}
		}
		total += len(f.words())
	}
	if len(old.words) <= nw+nw/lexiconSlack && len(old.stems.words) <= ns+ns/lexiconSlack {
		return
	}
	lx := newLexicon()
	lx.words = make([]string, 0, nw)
	lx.stems.words = make([]string, 0, ns)
	renumber := func(m []int32, id uint32, from []string, to *[]string, ids map[string]uint32, c *strChunks) uint32 {
		if m[id] < 0 {
			m[id] = int32(len(*to)) + 1 // 0 is unused, -1 used and not yet numbered
			w := c.str(from[id])        // a copy: the old chunks go with the old lexicon
			*to = append(*to, w)
			ids[w] = uint32(m[id] - 1)
		}
		return uint32(m[id] - 1)
	}
	renewed := make([]*Flag, s.flags.len())
	a := newArena()
	all := make([]uint32, 0, total)
	for i, f := range s.flags.all() {
		if f == nil {
			continue // a hole stays one
		}
		split := int(f.wordEnd[NumLangs-1])
		from := len(all)
		for k, id := range f.words() {
			if k < split {
				all = append(all, renumber(words, id, old.words, &lx.words, lx.ids, &lx.chunks))
			} else {
				all = append(all, renumber(stems, id, old.stems.words, &lx.stems.words, lx.stems.ids, &lx.stems.chunks))
			}
		}
		renewed[i] = f.renumbered(a, all[from:len(all):len(all)])
	}
	s.flags = flagListOf(renewed)
	s.renewed = true
	// The stems known of words in use carry over; those by the word as
	// written are found again when needed.
	for l, byID := range old.stems.byID {
		to := make([]int32, len(lx.words))
		for k := range to {
			to[k] = -1
		}
		for id, sid := range byID {
			if sid >= 0 && words[id] > 0 && stems[sid] > 0 {
				to[words[id]-1] = stems[sid] - 1
			}
		}
		lx.stems.byID[l] = to
	}
	s.lexicon = lx
}

// size is the number of words and stems the lexicon holds.
func (lx *lexicon) size() int { return len(lx.words) + len(lx.stems.words) }

// strChunks carves the strings of a lexicon or a stem cache from chunks of
// strChunk bytes: the tens of thousands of words it holds are then a few
// objects for the collector to mark, not one each. A chunk's bytes are
// never written again once carved.
type strChunks struct{ buf []byte }

const strChunk = 64 << 10

// str returns a copy of s.
func (c *strChunks) str(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > strChunk/16 {
		return strings.Clone(s)
	}
	if len(s) > cap(c.buf)-len(c.buf) {
		c.buf = make([]byte, 0, strChunk)
	}
	start := len(c.buf)
	c.buf = append(c.buf, s...)
	return unsafe.String(&c.buf[start], len(s))
}
