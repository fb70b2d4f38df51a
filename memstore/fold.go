package memstore

import (
	"unicode"
	"unicode/utf8"
)

// foldTable maps the letters of Latin-1 and Latin Extended-A (U+00C0 to
// U+017F) to their folded ASCII form: lower case, no diacritics, with the
// Turkish dotless and dotted i both folded to i and German ß to ss.
var foldTable = func() map[rune]string {
	t := map[rune]string{}
	add := func(to string, runes string) {
		for _, r := range runes {
			t[r] = to
		}
	}
	add("a", "ÀÁÂÃÄÅàáâãäåĀāĂăĄą")
	add("ae", "Ææ")
	add("c", "ÇçĆćĈĉĊċČč")
	add("d", "ÐðĎďĐđ")
	add("e", "ÈÉÊËèéêëĒēĔĕĖėĘęĚě")
	add("g", "ĜĝĞğĠġĢģ")
	add("h", "ĤĥĦħ")
	add("i", "ÌÍÎÏìíîïĨĩĪīĬĭĮįİı")
	add("ij", "Ĳĳ")
	add("j", "Ĵĵ")
	add("k", "Ķķĸ")
	add("l", "ĹĺĻļĽľĿŀŁł")
	add("n", "ÑñŃńŅņŇňŉŊŋ")
	add("o", "ÒÓÔÕÖØòóôõöøŌōŎŏŐő")
	add("oe", "Œœ")
	add("r", "ŔŕŖŗŘř")
	add("s", "ŚśŜŝŞşŠšſȘș")
	add("ss", "ßẞ")
	add("t", "ŢţŤťŦŧȚț")
	add("th", "Þþ")
	add("u", "ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲų")
	add("w", "Ŵŵ")
	add("y", "ÝýÿŶŷŸ")
	add("z", "ŹźŻżŽž")
	return t
}()

// foldRune appends the folded form of r to dst. Combining marks vanish, so
// decomposed input ("i" + U+0307) folds like its composed form.
func foldRune(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	}
	if s, ok := foldTable[r]; ok {
		return append(dst, s...)
	}
	if unicode.Is(unicode.Mn, r) {
		return dst
	}
	if lr := unicode.ToLower(r); lr != r {
		// The lower case may fold further: the Angstrom sign's is å,
		// the Kelvin sign's k.
		return foldRune(dst, lr)
	}
	return utf8.AppendRune(dst, r)
}

// isWordRune reports whether r belongs to a word; everything else separates
// words.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Fold returns s lower-cased with its diacritics removed, as search compares
// words: "Yaşlılara" folds to "yaslilara", "Straße" to "strasse".
func Fold(s string) string {
	buf := make([]byte, 0, len(s))
	for _, r := range s {
		buf = foldRune(buf, r)
	}
	return string(buf)
}

// Words splits s into its folded words, in order, duplicates kept.
func Words(s string) []string {
	var words []string
	var buf []byte
	for _, r := range s {
		if isWordRune(r) {
			buf = foldRune(buf, r)
			continue
		}
		if len(buf) > 0 {
			words = append(words, string(buf))
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		words = append(words, string(buf))
	}
	return words
}
