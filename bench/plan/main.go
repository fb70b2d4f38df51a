// Command plan asks a running flagpole for what bench/run loads it with:
// it writes, into -out, one file of request paths per case (wrk.lua rotates
// through them), cases.tsv (name, paths file, "gzip" or "-"), the bytes of
// the default /flags page (the ceiling server's body) and plan.json (the
// numbers the paths were computed from). It then requests every path once
// and counts the answers that are not 200, so a broken case is known before
// wrk runs it (and the response cache is warm).
//
//	plan -api http://127.0.0.1:18080 -key KEY -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

var (
	base   = flag.String("api", "http://127.0.0.1:18080", "API base URL")
	key    = flag.String("key", "", "API key")
	out    = flag.String("out", ".", "output directory")
	nSlugs = flag.Int("slugs", 2000, "distinct slugs for /flag/{slug}")
	nTrend = flag.Int("trends", 1000, "distinct slugs for the trend case")
	nQuery = flag.Int("queries", 600, "distinct search queries (at least 500)")
)

var client = &http.Client{Timeout: 30 * time.Second}

func get(path string, gzip bool) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("GET", *base+path, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+*key)
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	} else {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := client.Transport.(*http.Transport).RoundTrip(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

func getJSON(path string, v any) []byte {
	code, _, body, err := get(path, false)
	if err != nil {
		fail(fmt.Errorf("GET %s: %w", path, err))
	}
	if code != http.StatusOK {
		fail(fmt.Errorf("GET %s: %d %s", path, code, body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		fail(fmt.Errorf("GET %s: %w", path, err))
	}
	return body
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plan:", err)
	os.Exit(1)
}

type item struct {
	ID   string            `json:"id"`
	Slug string            `json:"slug"`
	Text map[string]string `json:"text"`
}

type page struct {
	Data  []item `json:"data"`
	Total int    `json:"total"`
}

type kase struct {
	name  string
	paths []string
	gzip  bool
	// check, when not 0, is how many of the paths are checked (and so
	// warm the caches) before wrk runs: the rest reach the server cold.
	check int
}

var sorts = []string{"net", "total", "controversial", "newest"}
var categories = []string{"behavioral", "character", "communication", "cultural", "financial", "lifestyle", "relationship", "social"}
var dominants = []string{"red", "green", "yellow"}

const api = "/api/public"

func main() {
	flag.Parse()
	client.Transport = &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}

	var def page
	defBody := getJSON(api+"/flags", &def)
	if err := os.WriteFile(filepath.Join(*out, "ceiling-body.json"), defBody, 0o644); err != nil {
		fail(err)
	}
	total := def.Total
	if total == 0 {
		fail(fmt.Errorf("the API serves no flag"))
	}

	var regs struct {
		Data []struct {
			Code  *string `json:"code"`
			Count int     `json:"count"`
		} `json:"data"`
	}
	getJSON(api+"/regions", &regs)
	regions := []string{"world"}
	for _, r := range regs.Data {
		if r.Code != nil && len(regions) < 5 {
			regions = append(regions, strings.ToLower(*r.Code))
		}
	}

	// Flags spread over the whole list: their slugs and texts.
	var flags []item
	seen := map[string]bool{}
	pages := (*nSlugs + 99) / 100
	for p := 0; p < pages; p++ {
		off := p * max(total-100, 0) / max(pages-1, 1)
		var pg page
		getJSON(fmt.Sprintf("%s/flags?sort=newest&limit=100&offset=%d", api, off), &pg)
		for _, f := range pg.Data {
			if !seen[f.Slug] {
				seen[f.Slug] = true
				flags = append(flags, f)
			}
		}
	}

	var cases []kase
	add := func(name string, gz bool, paths ...string) {
		cases = append(cases, kase{name: name, paths: paths, gzip: gz})
	}
	add("flags-default", false, api+"/flags")
	var sortPages []string
	for _, s := range sorts {
		for _, o := range []string{"asc", "desc"} {
			p := api + "/flags?sort=" + s + "&order=" + o
			add("flags-"+s+"-"+o, false, p)
			sortPages = append(sortPages, p)
		}
	}
	// bySort is one filter's values, each with every sort.
	bySort := func(param string, values []string) []string {
		var ps []string
		for _, v := range values {
			for _, s := range sorts {
				ps = append(ps, api+"/flags?"+param+"="+v+"&sort="+s)
			}
		}
		return ps
	}
	add("flags-category", false, bySort("category", categories)...)
	add("flags-region", false, bySort("region", regions)...)
	add("flags-dominant", false, bySort("dominant", dominants)...)
	var ps []string
	for _, c := range categories {
		for _, d := range dominants {
			for _, r := range regions[:min(2, len(regions))] {
				ps = append(ps, api+"/flags?category="+c+"&dominant="+d+"&region="+r)
			}
		}
	}
	add("flags-cat+dom+region", false, ps...)

	deep := map[string]int{}
	ps = nil
	for _, s := range sorts {
		off := total * 9 / 10
		deep["all"] = off
		ps = append(ps, fmt.Sprintf("%s/flags?sort=%s&offset=%d", api, s, off))
	}
	add("flags-offset90", false, ps...)
	ps = nil
	for i, c := range categories {
		d := dominants[i%len(dominants)]
		var pg page
		getJSON(api+"/flags?limit=1&category="+c+"&dominant="+d, &pg)
		off := pg.Total * 9 / 10
		deep[c+"+"+d] = off
		ps = append(ps, fmt.Sprintf("%s/flags?category=%s&dominant=%s&sort=total&offset=%d", api, c, d, off))
	}
	add("flags-cat+dom-offset90", false, ps...)

	// The most expensive /flags: every filter at once, or the two largest
	// lists intersected, at the last page with limit=100; a region with
	// no flag; an offset past the end.
	ps = nil
	for _, c := range categories {
		for _, d := range dominants {
			for _, r := range regions[:min(2, len(regions))] {
				var pg page
				q := "category=" + c + "&dominant=" + d + "&region=" + r
				getJSON(api+"/flags?limit=1&"+q, &pg)
				ps = append(ps, fmt.Sprintf("%s/flags?%s&sort=controversial&limit=100&offset=%d", api, q, max(pg.Total-100, 0)))
			}
		}
	}
	for _, d := range dominants {
		var pg page
		getJSON(api+"/flags?limit=1&region=world&dominant="+d, &pg)
		ps = append(ps, fmt.Sprintf("%s/flags?region=world&dominant=%s&sort=newest&limit=100&offset=%d", api, d, max(pg.Total-100, 0)))
	}
	for _, srt := range sorts {
		ps = append(ps, fmt.Sprintf("%s/flags?sort=%s&limit=100&offset=%d", api, srt, max(total-100, 0)),
			fmt.Sprintf("%s/flags?sort=%s&limit=100&offset=%d", api, srt, total+1000),
			api+"/flags?region=aq&limit=100&sort="+srt)
	}
	add("flags-worst", false, ps...)

	ps = nil
	for _, f := range flags[:min(*nSlugs, len(flags))] {
		ps = append(ps, api+"/flag/"+url.PathEscape(f.Slug))
	}
	add("flag-slug", false, ps...)
	ps = nil
	for i, f := range flags[:min(*nTrend, len(flags))] {
		if i%2 == 0 {
			ps = append(ps, api+"/flag/"+url.PathEscape(f.Slug)+"/trend?days=90")
		} else {
			ps = append(ps, api+"/flag/"+url.PathEscape(f.Slug)+"/trend")
		}
	}
	add("trend", false, ps...)

	// The API refuses a search whose work would pass its bound (words
	// common to most flags, such as "to the"): such queries are counted
	// and replaced, so the case measures answered searches.
	var queries []string
	refused := 0
	for _, q := range makeQueries(flags, *nQuery*3/2) {
		if len(queries) == *nQuery {
			break
		}
		if code, _, _, err := get(api+"/search?q="+url.QueryEscape(q), false); err == nil && code == http.StatusBadRequest {
			refused++
			continue
		}
		queries = append(queries, q)
	}
	ps = nil
	for _, q := range queries {
		ps = append(ps, api+"/search?q="+url.QueryEscape(q))
	}
	add("search", false, ps...)
	addSearchWorst(add, flags, queries)
	cases[len(cases)-1].check = 100
	add("categories", false, api+"/categories")
	add("regions", false, api+"/regions")
	add("stats", false, api+"/stats")
	add("flags-gzip", true, append([]string{api + "/flags"}, sortPages...)...)

	// Write the files and check every path once.
	var tsv strings.Builder
	bad := map[string]int{}
	var examples []string
	var mu sync.Mutex
	for _, c := range cases {
		file := filepath.Join(*out, c.name+".paths")
		if err := os.WriteFile(file, []byte(strings.Join(c.paths, "\n")+"\n"), 0o644); err != nil {
			fail(err)
		}
		gz := "-"
		if c.gzip {
			gz = "gzip"
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%d\n", c.name, file, gz, len(c.paths))
		work := make(chan string)
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range work {
					code, h, body, err := get(p, c.gzip)
					ok := err == nil && code == http.StatusOK && (!c.gzip || h.Get("Content-Encoding") == "gzip")
					if !ok {
						mu.Lock()
						bad[c.name]++
						if len(examples) < 20 {
							examples = append(examples, fmt.Sprintf("%s: %d %v %.200s", p, code, err, body))
						}
						mu.Unlock()
					}
				}
			}()
		}
		checked := c.paths
		if c.check > 0 {
			checked = c.paths[:min(c.check, len(c.paths))]
		}
		for _, p := range checked {
			work <- p
		}
		close(work)
		wg.Wait()
	}
	if err := os.WriteFile(filepath.Join(*out, "cases.tsv"), []byte(tsv.String()), 0o644); err != nil {
		fail(err)
	}
	summary := map[string]any{"total": total, "defaultPageBytes": len(defBody), "regions": regions,
		"slugs": min(*nSlugs, len(flags)), "queries": len(queries), "searchesRefused": refused, "deepOffsets": deep,
		"badPaths": bad, "badExamples": examples}
	b, _ := json.Marshal(summary) // one line: bench/run keeps it as one record
	if err := os.WriteFile(filepath.Join(*out, "plan.json"), b, 0o644); err != nil {
		fail(err)
	}
	for _, e := range examples {
		fmt.Fprintln(os.Stderr, "plan: not 200:", e)
	}
}

// addSearchWorst adds the most expensive searches the API answers:
// "search-worst", 600 distinct queries of the shapes that cost most (the
// sample's commonest 2- and 3-letter prefixes alone, up to ten of them
// together, ten long words up to the 200-character limit; the API may
// refuse some of them, those are left out), and "search-separators",
// 30,000 queries that differ from one of 10 of them only in separators,
// case and repeated words, of which only the first 100 are checked: the
// rest reach the server cold, as a client that varies separators to miss
// the response cache would send them.
func addSearchWorst(add func(string, bool, ...string), flags []item, ordinary []string) {
	count := map[string]int{}
	for _, f := range flags {
		for _, t := range f.Text {
			seen := map[string]bool{}
			for _, w := range words(fold(t)) {
				for _, n := range []int{2, 3} {
					if p := prefix(w, n); len([]rune(p)) == n && !seen[p] {
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
	common = common[:min(80, len(common))]
	rng := rand.New(rand.NewPCG(3, 4))
	var cands []string
	seen := map[string]bool{}
	push := func(q string) {
		if q != "" && !seen[q] && len([]rune(q)) <= 200 {
			seen[q] = true
			cands = append(cands, q)
		}
	}
	for _, p := range common {
		push(p)
	}
	for tries := 0; len(cands) < 1500 && tries < 100000; tries++ {
		k := 2 + rng.IntN(9)
		ws := make([]string, k)
		for i := range ws {
			ws[i] = common[rng.IntN(len(common))]
		}
		push(strings.Join(ws, " "))
	}
	for i := 0; i+10 <= len(ordinary) && len(cands) < 1800; i += 10 {
		push(strings.Join(ordinary[i:i+10], " "))
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
	add("search-worst", false, ps...)
	seps := []string{" ", ",", ";", "  ", "-", ".", "/", "+", "\t", "!", ", ", " - "}
	ps = nil
	for i := 0; len(ok) > 0 && i < 30000; i++ {
		ws := strings.Fields(ok[i%min(10, len(ok))])
		var b strings.Builder
		for k, w := range ws {
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
	add("search-separators", false, ps...)
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
