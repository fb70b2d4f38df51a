package memstore

import (
	"unicode"
	"unicode/utf8"
)

// eachWord calls fn for each word of s, split as Words splits it: the
// word as written and its code point offsets in s, end exclusive.
func eachWord(s string, fn func(start, end int, raw string)) {
	// A run of combining marks alone folds to nothing: no word.
	startByte, startRune, n, base := -1, 0, 0, false
	for i, r := range s {
		if isWordRune(r) {
			if startByte < 0 {
				startByte, startRune, base = i, n, false
			}
			base = base || r < utf8.RuneSelf || !unicode.Is(unicode.Mn, r)
		} else if startByte >= 0 {
			if base {
				fn(startRune, n, s[startByte:i])
			}
			startByte = -1
		}
		n++
	}
	if startByte >= 0 && base {
		fn(startRune, n, s[startByte:])
	}
}

// RawWords splits s into its words as written, as Words splits it: the
// words Words folds, in order, duplicates kept.
func RawWords(s string) []string {
	var out []string
	eachWord(s, func(_, _ int, raw string) { out = append(out, raw) })
	return out
}
