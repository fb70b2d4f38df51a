package memstore

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// langSnapshot builds one flag per entry of texts, each entry the flag's
// texts by language ("" for a word no query here matches), flag i in
// category i%NumCategories and region "r<i%3>", red 7·(i%4) and green i.
func langSnapshot(t *testing.T, texts [][NumLangs]string) *Snapshot {
	t.Helper()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	flags := make([]FlagInput, len(texts))
	for i, tx := range texts {
		in := FlagInput{ID: fmt.Sprintf("flg_%02d", i), Slug: fmt.Sprintf("flag-%d", i), Approved: true,
			Category: Categories[i%NumCategories], Region: fmt.Sprintf("r%d", i%3), CreatedAt: now, UpdatedAt: now,
			Red: int64(i%4) * 7, Green: int64(i)}
		for l := range in.Text {
			in.Text[l] = tx[l]
			if in.Text[l] == "" {
				in.Text[l] = fmt.Sprintf("zz%d", i)
			}
		}
		flags[i] = in
	}
	snap, err := Build(nil, Change{Full: true, Flags: flags, LoadedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func findIDs(t *testing.T, s *Snapshot, q string, o FindOptions) ([]string, SearchResult) {
	t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	if o.Limit == 0 {
		o.Limit = 50
	}
	res, err := s.Find(pq, o)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.Flag.ID())
	}
	return ids, res
}

// Typos are allowed from 5 folded letters (one) and 9 (two): each query is
// a typo'd form of exactly one word of the texts, at the bounds.
func TestSearchTypoBounds(t *testing.T) {
	s := searchSnapshot(t, []string{"kelp", "mango", "cucumber", "pineapple", "strasse", "mangos"},
		[]int64{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		q    string
		want string
	}{
		{"kepl", "[]"},               // 4 letters: no typo, not even a swap
		{"kelx", "[]"},               // 4 letters: no substitution
		{"mnago", "[flg_05 flg_01]"}, // 5 letters: a swap is one typo (mango, and the prefix of mangos; ties by votes)
		{"mangx", "[flg_05 flg_01]"}, // 5 letters: a substitution
		{"mngx", "[]"},               // 4 letters: nothing
		{"mnagx", "[]"},              // 5 letters, two typos: no
		{"cucmuebr", "[]"},           // 8 letters, two typos: no
		{"cucmuber", "[flg_02]"},     // 8 letters, one swap
		{"pinaepplr", "[flg_03]"},    // 9 letters, a swap and a substitution
		{"pinaeppler", "[flg_03]"},   // 10 letters, a swap and a letter too many
		{"pinaepplrx", "[]"},         // a swap, a substitution and a letter too many
		{"pinxepplrx", "[]"},         // three typos
		{"pineappxe", "[flg_03]"},    // one
		{"pineapl", "[flg_03]"},      // a prefix with a letter left out: the prefix pineappl
		{"pinaepp", "[flg_03]"},      // a prefix with a swap
		{"Strasze", "[flg_04]"},      // one substitution of the folded strasse
		{"Straßx", "[flg_04]"},       // ß is ss: strassx is one typo off the prefix strass
		{"mangoss", "[flg_05]"},      // one letter too many for mango, a prefix typo of mangos
		{"cucumbers", "[flg_02]"},    // the English stem, not a typo
		{"kelpx", "[flg_00]"},        // 5 letters, one too many: a typo of kelp, as of a prefix
		{"kelpxy", "[]"},             // two too many
	} {
		ids, _ := findIDs(t, s, tc.q, FindOptions{})
		if fmt.Sprint(ids) != tc.want && !(tc.want == "[]" && ids == nil) {
			t.Errorf("%q: hits %v, want %v", tc.q, ids, tc.want)
		}
	}
}

// A typo'd word matches whole words only when it is not the last word
// of the query... every word of two letters or more matches as a prefix,
// so the rule tested here is the one of MaxTypos.
func TestMaxTypos(t *testing.T) {
	for n, want := range []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2} {
		if got := MaxTypos(n); got != want {
			t.Errorf("MaxTypos(%d) = %d, want %d", n, got, want)
		}
	}
}

// Each language's words also match through their stem in that language:
// the examples of the contract, and no stem across languages.
func TestSearchStems(t *testing.T) {
	s := langSnapshot(t, [][NumLangs]string{
		{TR: "Hep otobüste uyur"},
		{DE: "Trifft seinen Freund"},
		{ES: "Sale con su amigo"},
		{EN: "Always texts back"},
		{DE: "texting"}, // an English word in the German text: no English stem
	})
	for _, tc := range []struct{ q, want string }{
		{"otobüsler", "[flg_00]"},
		{"Freunde", "[flg_01]"},
		{"amigos", "[flg_02]"},
		{"texting", "[flg_04 flg_03]"}, // texting exact in German, texts by its English stem
		{"otobusler", "[flg_00]"},      // without ü no Turkish stem, but two typos off otobuste
		{"Freumd", "[flg_01]"},         // a typo
	} {
		ids, _ := findIDs(t, s, tc.q, FindOptions{})
		if fmt.Sprint(ids) != tc.want && !(tc.want == "[]" && ids == nil) {
			t.Errorf("%q: hits %v, want %v", tc.q, ids, tc.want)
		}
	}
	for q, want := range map[string]string{"otobüsler": "[{4 12 stem}]", "otobusler": "[{4 12 typo}]", "otobüs": "[{4 12 prefix}]"} {
		if _, res := findIDs(t, s, q, FindOptions{}); len(res.Hits) != 1 || fmt.Sprint(res.Hits[0].Matches[TR]) != want {
			t.Errorf("%s: hits %v, want one with Turkish matches %s", q, res.Hits, want)
		}
	}
	_, res := findIDs(t, s, "texting", FindOptions{})
	if got := res.Hits[1].Matches[EN]; fmt.Sprint(got) != "[{7 12 stem}]" {
		t.Errorf("texting: English matches %v, want texts as a stem [{7 12 2}]", got)
	}
}

// Matches are code point offsets into the text as written, whatever
// folding does to the lengths: ß folds to two letters, İ and a combining
// mark to one or none.
func TestSearchMatchOffsets(t *testing.T) {
	tr := "İyi Straße'de KAFE\u0301 içer, iyi."
	s := langSnapshot(t, [][NumLangs]string{{TR: tr, EN: "good strasse"}})
	_, res := findIDs(t, s, "iyi strasse kafe", FindOptions{})
	if len(res.Hits) != 1 {
		t.Fatalf("hits %v, want one", res.Hits)
	}
	m := res.Hits[0].Matches
	want := []Match{{0, 3, MatchExact}, {4, 10, MatchExact}, {14, 19, MatchExact}, {26, 29, MatchExact}}
	if !slices.Equal(m[TR], want) {
		t.Errorf("tr matches %v, want %v", m[TR], want)
	}
	runes := []rune(tr)
	var words []string
	for _, x := range m[TR] {
		words = append(words, string(runes[x.Start:x.End]))
	}
	if fmt.Sprint(words) != "[İyi Straße KAFE\u0301 iyi]" {
		t.Errorf("tr matched words %q", words)
	}
	if want := []Match{{5, 12, MatchExact}}; !slices.Equal(m[EN], want) {
		t.Errorf("en matches %v, want %v", m[EN], want)
	}
	if m[DE] != nil || m[ES] != nil {
		t.Errorf("matches in texts without the words: %v", m)
	}
	// Each word at its best kind: iç is a prefix of içer.
	_, res = findIDs(t, s, "iyi iç", FindOptions{})
	if got := res.Hits[0].Matches[TR]; fmt.Sprint(got) != "[{0 3 exact} {20 24 prefix} {26 29 exact}]" {
		t.Errorf("iyi iç: tr matches %v", got)
	}
}

// Find's filters narrow, its offset pages and total counts every match;
// a language searched alone matches only its own text.
func TestFindFiltersPagesAndLanguage(t *testing.T) {
	var texts [][NumLangs]string
	for i := range 24 {
		texts = append(texts, [NumLangs]string{EN: fmt.Sprintf("apple %d", i), DE: "Apfel"})
	}
	s := langSnapshot(t, texts)
	all, res := findIDs(t, s, "apple", FindOptions{})
	if res.Total != 24 || len(all) != 24 {
		t.Fatalf("apple: %d hits of %d, want 24", len(all), res.Total)
	}
	page, res := findIDs(t, s, "apple", FindOptions{Offset: 5, Limit: 7})
	if res.Total != 24 || fmt.Sprint(page) != fmt.Sprint(all[5:12]) {
		t.Errorf("offset 5 limit 7: %v (total %d), want %v", page, res.Total, all[5:12])
	}
	if page, res := findIDs(t, s, "apple", FindOptions{Offset: 24}); page != nil || res.Total != 24 {
		t.Errorf("offset past the end: %v, total %d", page, res.Total)
	}
	cat, res := findIDs(t, s, "apple", FindOptions{HasCategory: true, Category: 3, HasRegion: true, Region: "r0"})
	// Category 3: flags 3, 11, 19; region r0: multiples of 3.
	if fmt.Sprint(cat) != "[flg_03]" || res.Total != 1 {
		t.Errorf("category 3 in r0: %v (total %d)", cat, res.Total)
	}
	dom, res := findIDs(t, s, "apple", FindOptions{HasDominant: true, Dominant: Red})
	red := 0
	for i := range s.Len() {
		if s.At(i).Dominant == Red {
			red++
		}
	}
	if red == 0 || red == 24 || res.Total != red || len(dom) != red {
		t.Errorf("dominant red: %d hits of %d, want %d", len(dom), res.Total, red)
	}
	for _, h := range res.Hits {
		if h.Flag.Dominant != Red {
			t.Errorf("dominant red kept %s", h.Flag.ID())
		}
	}
	if ids, _ := findIDs(t, s, "apfel", FindOptions{HasLang: true, Lang: EN}); ids != nil {
		t.Errorf("apfel in English: %v, want none", ids)
	}
	if ids, res := findIDs(t, s, "apfel", FindOptions{HasLang: true, Lang: DE}); len(ids) != 24 || res.Hits[0].Matches[EN] != nil {
		t.Errorf("apfel in German: %d hits, English matches %v", len(ids), res.Hits[0].Matches[EN])
	}
}

// A word with fewer than TypoBelow exact and prefix matches is also
// matched with typos; one with TypoBelow or more is not.
func TestSearchTypoBelow(t *testing.T) {
	for _, n := range []int{TypoBelow - 1, TypoBelow} {
		texts := []string{"mangx"}
		totals := []int64{1000}
		for range n {
			texts = append(texts, "mango")
			totals = append(totals, 1)
		}
		s := searchSnapshot(t, texts, totals)
		_, res := findIDs(t, s, "mango", FindOptions{Limit: 1})
		want := n + 1
		if n >= TypoBelow {
			want = n
		}
		if res.Total != want || res.Hits[0].Flag.ID() == "flg_00" {
			t.Errorf("%d flags with mango: total %d, first %s; want %d, exact matches first", n, res.Total, res.Hits[0].Flag.ID(), want)
		}
	}
}

// Stem and typo matches take no more than ForgiveBudget: a query whose
// typo search would pass it has no typo match, and its visits count as
// work.
func TestSearchForgiveBudget(t *testing.T) {
	s := searchSnapshot(t, []string{"pineapple"}, []int64{1})
	q, _ := ParseQuery("pinaeppler")
	ix := s.search
	plans := ix.plan(q, &FindOptions{})
	var res SearchResult
	ix.forgive(plans, &FindOptions{}, 10, &res)
	if res.typos != 0 || res.Work == 0 || res.Work > 10 {
		t.Errorf("budget 10: typos %b, work %d", res.typos, res.Work)
	}
	res = SearchResult{}
	plans = ix.plan(q, &FindOptions{})
	ix.forgive(plans, &FindOptions{}, SearchBudget(1), &res)
	if res.typos != 1 || res.Work == 0 {
		t.Errorf("full budget: typos %b, work %d", res.typos, res.Work)
	}
	if ForgiveBudget(100_000) != 25_000 || ForgiveBudget(10) != 10_000 {
		t.Errorf("ForgiveBudget: %d, %d", ForgiveBudget(100_000), ForgiveBudget(10))
	}
}

func TestSubtractAndKindOf(t *testing.T) {
	srcs := []source{{span{2, 3}, MatchExact}, {span{3, 6}, MatchPrefix}}
	if got := fmt.Sprint(subtract(span{0, 10}, srcs)); got != "[{0 2} {6 10}]" {
		t.Errorf("subtract: %s", got)
	}
	if got := fmt.Sprint(subtract(span{3, 5}, srcs)); got != "[]" {
		t.Errorf("subtract inside: %s", got)
	}
	many := []source{{span{0, 1}, MatchTypo}, {span{2, 3}, MatchExact}, {span{3, 6}, MatchPrefix},
		{span{8, 9}, MatchTypo}, {span{9, 12}, MatchTypo}, {span{20, 21}, MatchTypo}}
	for _, ss := range [][]source{many, many[1:3]} {
		for v := int32(0); v < 25; v++ {
			want, wok := MatchKind(0), false
			for _, s := range ss {
				if v >= s.lo && v < s.hi {
					want, wok = s.kind, true
				}
			}
			if got, ok := kindOf(ss, v); ok != wok || got != want {
				t.Errorf("kindOf(%v, %d) = %v %v, want %v %v", ss, v, got, ok, want, wok)
			}
		}
	}
}

// A word of the text that several query words match is marked once, with
// the best of their kinds (exact, prefix, stem, typo), whatever the order
// of the query's words.
func TestSearchMatchBestKind(t *testing.T) {
	s := langSnapshot(t, [][NumLangs]string{{TR: "Hep otobüste uyur"}})
	for _, tc := range []struct{ a, b, want string }{
		{"otob", "otobüste", "[{4 12 exact}]"},
		{"otob", "otobüsta", "[{4 12 prefix}]"},
		{"otobüsler", "otobüsta", "[{4 12 stem}]"},
		{"otobüsler", "otob", "[{4 12 prefix}]"},
		{"otobüste", "otobüsler", "[{4 12 exact}]"},
	} {
		for _, q := range []string{tc.a + " " + tc.b, tc.b + " " + tc.a} {
			_, res := findIDs(t, s, q, FindOptions{})
			if len(res.Hits) != 1 {
				t.Errorf("%q: hits %v, want one", q, res.Hits)
				continue
			}
			if got := fmt.Sprint(res.Hits[0].Matches[TR]); got != tc.want {
				t.Errorf("%q: Turkish matches %s, want %s", q, got, tc.want)
			}
		}
	}
}

// Words of three letters or more are stemmed, shorter ones are their own
// folded form: Turkish evi and eve stem to ev, and so a three-letter
// query finds the other inflection.
func TestStemFromThreeLetters(t *testing.T) {
	for _, tc := range []struct {
		l        Lang
		in, want string
	}{{TR, "evi", "ev"}, {TR, "Eve", "ev"}, {EN, "its", "it"}, {TR, "EV", "ev"}, {EN, "Is", "is"}} {
		if got := Stem(tc.l, tc.in); got != tc.want {
			t.Errorf("Stem(%d, %q) = %q, want %q", tc.l, tc.in, got, tc.want)
		}
	}
	s := langSnapshot(t, [][NumLangs]string{{TR: "Akşam eve gider"}})
	if _, res := findIDs(t, s, "evi", FindOptions{}); len(res.Hits) != 1 || fmt.Sprint(res.Hits[0].Matches[TR]) != "[{6 9 stem}]" {
		t.Errorf("evi: hits %v, want eve as a stem", res.Hits)
	}
}

// Typos count code points, not bytes, in scripts that folding keeps as
// they are: one substituted Cyrillic letter in six is one typo, a word of
// four Cyrillic letters (eight bytes) allows none, two substitutions in
// six are too many.
func TestSearchTypoOtherScripts(t *testing.T) {
	s := langSnapshot(t, [][NumLangs]string{{EN: "Moscow is Москва"}, {EN: "Кофе дома"}})
	for q, want := range map[string]string{"масква": "[{10 16 typo}]", "мсоква": "[{10 16 typo}]", "омсква": "[{10 16 typo}]", "Москва": "[{10 16 exact}]", "моск": "[{10 16 prefix}]"} {
		if _, res := findIDs(t, s, q, FindOptions{}); len(res.Hits) != 1 || fmt.Sprint(res.Hits[0].Matches[EN]) != want {
			t.Errorf("%s: hits %v, want one with English matches %s", q, res.Hits, want)
		}
	}
	for _, q := range []string{"кафе", "масквв"} {
		if ids, _ := findIDs(t, s, q, FindOptions{}); ids != nil {
			t.Errorf("%s: hits %v, want none", q, ids)
		}
	}
}

// Each search marks the flags it keeps with stamps of its own: a search
// right after one of ten words (the most rounds) finds what it finds
// alone, and so does a run of searches past the stamps' wrap.
func TestSearchStampsDoNotLeak(t *testing.T) {
	ten := "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
	s := langSnapshot(t, [][NumLangs]string{{EN: ten}, {EN: "alpha kilo"}, {EN: "bravo lima"}})
	want := map[string]string{"alpha": "[flg_01 flg_00]", "bravo": "[flg_02 flg_00]", ten: "[flg_00]", "juliet": "[flg_00]"}
	for range 3 {
		for _, q := range []string{ten, "alpha", ten, "juliet", ten, "bravo"} {
			if ids, _ := findIDs(t, s, q, FindOptions{}); fmt.Sprint(ids) != want[q] {
				t.Fatalf("%q after a search of ten words: %v, want %s", q, ids, want[q])
			}
		}
	}
}

// The index knows each language's mean number of distinct words per
// flag, rounded up (what checking one candidate's words costs), and a
// search takes its rarest word first: a rare word beside a common one
// costs about the rare word's postings, in either order, not the common
// word's.
func TestSearchCostEstimates(t *testing.T) {
	texts := make([][NumLangs]string, 0, 301)
	for i := range 300 {
		texts = append(texts, [NumLangs]string{EN: fmt.Sprintf("common word w%d", i), TR: "bir"})
	}
	texts = append(texts, [NumLangs]string{EN: "rare common", TR: "bir iki"})
	s := langSnapshot(t, texts)
	// English: 300 flags of three words, one of two; Turkish: 300 of one,
	// one of two; the others one word each (zzN).
	for l, want := range map[Lang]int{EN: (300*3 + 2 + 300) / 301, TR: (300 + 2 + 300) / 301, DE: 1} {
		if got := s.search.perFlag[l]; got != want {
			t.Errorf("perFlag[%d] = %d, want %d", l, got, want)
		}
	}
	for _, q := range []string{"rare common", "common rare"} {
		ids, res := findIDs(t, s, q, FindOptions{})
		if fmt.Sprint(ids) != "[flg_300]" {
			t.Fatalf("%q: %v", q, ids)
		}
		if res.Work >= 300 {
			t.Errorf("%q: work %d, as much as reading the 301 postings of common", q, res.Work)
		}
	}
}
