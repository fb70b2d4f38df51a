package main

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// searchCases are the ordinary searches, then the most expensive ones.
// The API refuses a search whose work would pass its bound (words common
// to most flags, such as "to the"): such queries are counted and
// replaced, so the case measures answered searches.
func (p *planner) searchCases() {
	for _, q := range makeQueries(p.flags, *nQuery*3/2) {
		if len(p.queries) == *nQuery {
			break
		}
		if code, _, _, err := get(api+"/search?q="+url.QueryEscape(q), false); err == nil && code == http.StatusBadRequest {
			p.refused++
			continue
		}
		p.queries = append(p.queries, q)
	}
	var ps []string
	for _, q := range p.queries {
		ps = append(ps, api+"/search?q="+url.QueryEscape(q))
	}
	p.add("search", false, ps...)
	p.searchWorst()
}

// searchWorst adds the most expensive searches the API answers:
// "search-worst", 600 distinct queries of the shapes that cost most (the
// sample's commonest 2- and 3-letter prefixes alone, up to ten of them
// together, ten long words up to the 200-character limit; the API may
// refuse some of them, those are left out), and "search-separators",
// 30,000 queries that differ from one of 10 of them only in separators,
// case and repeated words, of which only the first 100 are checked: the
// rest reach the server cold, as a client that varies separators to miss
// the response cache would send them.
func (p *planner) searchWorst() {
	common := commonPrefixes(p.flags, 80)
	rng := rand.New(rand.NewPCG(3, 4))
	var cands []string
	seen := map[string]bool{}
	push := func(q string) {
		if q != "" && !seen[q] && len([]rune(q)) <= 200 {
			seen[q] = true
			cands = append(cands, q)
		}
	}
	for _, c := range common {
		push(c)
	}
	for tries := 0; len(cands) < 1500 && tries < 100000; tries++ {
		ws := make([]string, 2+rng.IntN(9))
		for i := range ws {
			ws[i] = common[rng.IntN(len(common))]
		}
		push(strings.Join(ws, " "))
	}
	for i := 0; i+10 <= len(p.queries) && len(cands) < 1800; i += 10 {
		push(strings.Join(p.queries[i:i+10], " "))
	}
	var ok []string
	for _, q := range cands {
		if len(ok) == 600 {
			break
		}
		if code, _, _, err := get(api+"/search?q="+url.QueryEscape(q), false); err == nil && code == http.StatusOK {
			ok = append(ok, q)
		}
	}
	var ps []string
	for _, q := range ok {
		ps = append(ps, api+"/search?q="+url.QueryEscape(q))
	}
	p.add("search-worst", false, ps...)
	p.add("search-separators", false, separatorVariants(ok[:min(10, len(ok))], 30000, rng)...)
	p.cases[len(p.cases)-1].check = 100
}

// commonPrefixes is the n commonest 2- and 3-letter prefixes of the
// flags' folded words, counted once per text.
func commonPrefixes(flags []item, n int) []string {
	count := map[string]int{}
	for _, f := range flags {
		for _, t := range f.Text {
			seen := map[string]bool{}
			for _, w := range words(fold(t)) {
				for _, k := range []int{2, 3} {
					if p := prefix(w, k); len([]rune(p)) == k && !seen[p] {
						seen[p] = true
						count[p]++
					}
				}
			}
		}
	}
	var common []string
	for p := range count {
		common = append(common, p)
	}
	sort.Slice(common, func(i, j int) bool {
		return count[common[i]] > count[common[j]] || count[common[i]] == count[common[j]] && common[i] < common[j]
	})
	return common[:min(n, len(common))]
}

// separatorVariants is n search paths, each one of queries (in turn) with
// random separators, random upper case and some words repeated.
func separatorVariants(queries []string, n int, rng *rand.Rand) []string {
	seps := []string{" ", ",", ";", "  ", "-", ".", "/", "+", "\t", "!", ", ", " - "}
	var ps []string
	for i := 0; len(queries) > 0 && i < n; i++ {
		var b strings.Builder
		for k, w := range strings.Fields(queries[i%len(queries)]) {
			if k > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			if rng.IntN(2) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			if rng.IntN(4) == 0 {
				b.WriteString(seps[rng.IntN(len(seps))] + w)
			}
		}
		if q := b.String(); len([]rune(q)) <= 200 {
			ps = append(ps, api+"/search?q="+url.QueryEscape(q))
		}
	}
	return ps
}

// fold lowers s and strips the diacritics the contract names, as a client
// that types without them would.
func fold(s string) string {
	r := strings.NewReplacer("ı", "i", "İ", "i", "ş", "s", "Ş", "s", "ğ", "g", "Ğ", "g", "ç", "c", "Ç", "c",
		"ö", "o", "Ö", "o", "ü", "u", "Ü", "u", "ß", "ss", "ä", "a", "Ä", "a", "ñ", "n", "Ñ", "n",
		"á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "Á", "a", "É", "e", "Í", "i", "Ó", "o", "Ú", "u")
	return strings.ToLower(r.Replace(s))
}

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func prefix(w string, n int) string {
	r := []rune(w)
	return string(r[:min(n, len(r))])
}

// makeQueries builds n distinct queries from the flags' texts, the same
// number in each language: 2- to 8-letter prefixes of one word, or a whole
// word and the prefix of the next, as typed (original letters, lower case)
// or folded.
func makeQueries(flags []item, n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	langs := []string{"tr", "en", "de", "es"}
	seen := map[string]bool{}
	var out []string
	for tries := 0; len(out) < n && tries < n*200; tries++ {
		l := langs[len(out)%len(langs)]
		f := flags[rng.IntN(len(flags))]
		ws := words(f.Text[l])
		if len(ws) == 0 {
			continue
		}
		k := 2 + rng.IntN(7)
		var q string
		if i := rng.IntN(len(ws)); rng.IntN(3) == 0 && i+1 < len(ws) {
			q = ws[i] + " " + prefix(ws[i+1], k)
		} else {
			if len([]rune(ws[i])) < 2 {
				continue
			}
			q = prefix(ws[i], k)
		}
		switch rng.IntN(3) {
		case 0:
			q = fold(q)
		case 1:
			q = strings.ToLower(q)
		}
		if len([]rune(strings.TrimSpace(q))) < 2 || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
	}
	return out
}
