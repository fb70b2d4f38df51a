package memstore

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Folding goes through lower case to the table: a letter whose lower
// case has a diacritic folds like that lower case.
func TestFoldThroughLowerCase(t *testing.T) {
	for in, want := range map[string]string{"\u212b": "a", "\u212a": "k", "\u212bngstr\u00f6m": "angstrom"} {
		if got := Fold(in); got != want || Fold(got) != got {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// Runes from U+0080 up are not ASCII: they keep their UTF-8 form, at the
// boundary too.
func TestFoldKeepsNonASCII(t *testing.T) {
	for in, want := range map[string]string{"a\u0080b": "a\u0080b", "\u007fZ": "\u007fz", "\u00c0\u0080": "a\u0080"} {
		if got := Fold(in); got != want || !utf8.ValidString(got) {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzFold checks what search relies on for any input, valid UTF-8 or
// not: folding never panics and is idempotent, words are valid, non-empty,
// already folded and free of separators, folding before splitting changes
// no word, and a query's canonical form does not depend on its
// separators.
//
//	go test ./memstore -run '^$' -fuzz FuzzFold -fuzztime 20s
func FuzzFold(f *testing.F) {
	for _, s := range []string{
		"Yaşlılara otobüste yer vermez", "İstanbul'da ISTANBUL ıi İi", "Straße Größe ẞ", "niño AUTOBÚS ¿qué?",
		"i\u0307 e\u0301 \u0301", "Å K ǅ ﬁ", "\xff\xfe a\xc3", strings.Repeat("a ", 100), strings.Repeat("ab-", 66),
		"a b c d e f g h i j k l", "bus  bus\tbus", "!!", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		folded := Fold(s)
		if again := Fold(folded); again != folded {
			t.Fatalf("Fold is not idempotent on %q: %q then %q", s, folded, again)
		}
		words := Words(s)
		for _, w := range words {
			if w == "" || !utf8.ValidString(w) {
				t.Fatalf("Words(%q) has %q", s, w)
			}
			if Fold(w) != w {
				t.Fatalf("Words(%q) has %q, which folds to %q", s, w, Fold(w))
			}
			if ws := Words(w); len(ws) != 1 || ws[0] != w {
				t.Fatalf("Words(%q) has %q, which splits into %q", s, w, ws)
			}
		}
		if got := Words(folded); !slices.Equal(got, words) {
			t.Fatalf("Words(Fold(%q)) = %q, Words = %q", s, got, words)
		}
		q, err := ParseQuery(s)
		if err != nil {
			return
		}
		if len(q.words) > MaxQueryWords {
			t.Fatalf("ParseQuery(%q) kept %d words", s, len(q.words))
		}
		q2, err := ParseQuery(strings.Join(RawWords(s), " ; "))
		if err != nil || q2.Key() != q.Key() {
			t.Fatalf("%q and its words with other separators: keys %q and %q (%v)", s, q.Key(), q2.Key(), err)
		}
	})
}
