package memstore

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxQueryWords is the most distinct words one query may have.
const MaxQueryWords = 10

// QueryWord is one distinct word of a query.
type QueryWord struct {
	Text   string // folded
	Prefix bool   // matches the words it starts; otherwise only itself
	runes  int
	// raw is the word as first written; stems are its folded stems, by
	// language (see Stem), filled by stem when the query is first run or
	// keyed, not by ParseQuery: a query answered from a cache of rendered
	// responses never needs them, and four stemmers per word cost more than
	// the rest of such a request.
	raw     string
	stemmed bool
	stems   [NumLangs]string
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
	raws := RawWords(q)
	var out Query
	longest := 0
	for i, raw := range raws {
		w := Fold(raw)
		n := utf8.RuneCountInString(w)
		last := i == len(raws)-1
		k := slices.IndexFunc(out.words, func(x QueryWord) bool { return x.Text == w })
		if k >= 0 {
			out.words[k].Prefix = out.words[k].Prefix || last
			continue
		}
		if len(out.words) == MaxQueryWords {
			return Query{}, &QueryError{Detail: "q has more than 10 different words; a search takes at most 10"}
		}
		qw := QueryWord{Text: w, Prefix: last || n >= 2, runes: n, raw: raw}
		out.words = append(out.words, qw)
		longest = max(longest, n)
	}
	if len(out.words) > 0 && longest < 2 {
		return Query{}, &QueryError{Detail: "q must have a word of at least 2 letters: single letters only narrow a search beside a longer word"}
	}
	return out, nil
}

// stem fills in the stems of q's words, once (the words are shared by
// the copies of q).
func (q Query) stem() {
	for i := range q.words {
		w := &q.words[i]
		if !w.stemmed {
			for l := range w.stems {
				w.stems[l] = stemOf(Lang(l), w.raw)
			}
			w.stemmed = true
		}
	}
}

// Key is the query in a canonical form: two queries with the same key
// find the same flags with the same ranks, whatever their separators,
// case, word order or repeated words. A word whose stems are not all
// itself has them after a ~, by language: diacritics count through them
// (otobüsler has the Turkish stem otobus, otobusler only itself).
func (q Query) Key() string {
	q.stem()
	keys := make([]string, len(q.words))
	for i, w := range q.words {
		keys[i] = w.Text
		if w.Prefix {
			keys[i] += "*"
		}
		if slices.ContainsFunc(w.stems[:], func(st string) bool { return st != w.Text }) {
			keys[i] += "~" + strings.Join(w.stems[:], ",")
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}
