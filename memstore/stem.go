package memstore

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/turkish"
)

// stemmers are the Snowball stemmers of the four languages, by Lang.
var stemmers = [NumLangs]func(*snowball.Env) bool{turkish.Stem, english.Stem, german.Stem, spanish.Stem}

// minStemRunes is the shortest word that is stemmed: shorter words match
// only as themselves or as a prefix.
const minStemRunes = 3

// Stem returns the folded Snowball stem, in language l, of one word as
// written. The Turkish and Spanish stemmers are given the word in lower
// case with its letters as written (Turkish case for Turkish: I is ı, İ
// is i), as they need the real letters to see a suffix (otobüste, -ía);
// the English and German stemmers are given the folded word, so that
// their stems do not depend on diacritics (German folds ä to a, and ß to
// ss as its stemmer does).
// The stem is then folded, so stems compare as folded words do. A word
// shorter than three letters is its own folded form.
func Stem(l Lang, word string) string {
	if utf8.RuneCountInString(word) < minStemRunes {
		return Fold(word)
	}
	var in string
	switch l {
	case TR:
		in = strings.ToLowerSpecial(unicode.TurkishCase, word)
	case ES:
		in = strings.ToLower(word)
	default:
		in = Fold(word)
	}
	env := snowball.NewEnv(in)
	stemmers[l](env)
	return Fold(env.Current())
}

// stemCache remembers the stems of the words the lexicon has seen, per
// language: by lexicon id for a word written as it folds (most words),
// else by the word as written. A tick stems only the words no flag had
// before.
type stemCache struct {
	ids    map[string]uint32 // stem -> id
	words  []string          // id -> stem
	chunks strChunks         // the stems' and raw words' bytes
	byID   [NumLangs][]int32 // lexicon id -> stem id, -1 for not yet
	byRaw  [NumLangs]map[string]uint32
}

func newStemCache() *stemCache {
	c := &stemCache{ids: map[string]uint32{}}
	for l := range c.byRaw {
		c.byRaw[l] = map[string]uint32{}
	}
	return c
}

// of returns the id of the stem in language l of raw, a word as written
// whose folded form has the lexicon id id; folded says raw is its own
// folded form.
func (c *stemCache) of(l Lang, id uint32, raw string, folded bool) uint32 {
	if !folded {
		if sid, ok := c.byRaw[l][raw]; ok {
			return sid
		}
		sid := c.stem(l, raw)
		c.byRaw[l][c.chunks.str(raw)] = sid
		return sid
	}
	ids := c.byID[l]
	for int(id) >= len(ids) {
		ids = append(ids, -1)
	}
	c.byID[l] = ids
	if ids[id] < 0 {
		ids[id] = int32(c.stem(l, raw))
	}
	return uint32(ids[id])
}

// stem returns the id of the stem of raw in language l.
func (c *stemCache) stem(l Lang, raw string) uint32 {
	st := Stem(l, raw)
	id, ok := c.ids[st]
	if !ok {
		st = c.chunks.str(st)
		id = uint32(len(c.words))
		c.ids[st] = id
		c.words = append(c.words, st)
	}
	return id
}

// queryStems remembers the stems of the words queries and highlighted
// texts asked for, by language and word as written: stemming a word in
// four languages costs a few microseconds, more than a whole ordinary
// search. It forgets everything when it holds stemCacheMax words.
var queryStems struct {
	sync.RWMutex
	m map[stemKey]string
}

type stemKey struct {
	l    Lang
	word string
}

const stemCacheMax = 1 << 14

// stemOf is Stem through queryStems.
func stemOf(l Lang, word string) string {
	k := stemKey{l, word}
	queryStems.RLock()
	st, ok := queryStems.m[k]
	queryStems.RUnlock()
	if ok {
		return st
	}
	st = Stem(l, word)
	queryStems.Lock()
	if queryStems.m == nil || len(queryStems.m) >= stemCacheMax {
		queryStems.m = make(map[stemKey]string, 1024)
	}
	queryStems.m[stemKey{l, strings.Clone(word)}] = st
	queryStems.Unlock()
	return st
}
