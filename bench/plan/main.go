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
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

var (
	base   = flag.String("api", "http://127.0.0.1:18080", "API base URL")
	key    = flag.String("key", "", "API key")
	out    = flag.String("out", ".", "output directory")
	nSlugs = flag.Int("slugs", 2000, "distinct slugs for /flag/{slug}")
	nTrend = flag.Int("trends", 1000, "distinct slugs for the trend case")
	nQuery = flag.Int("queries", 600, "distinct search queries (at least 500)")
)

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
