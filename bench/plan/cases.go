package main

import (
	"fmt"
	"net/url"
)

// sortPages is the default page in each sort and order.
func (p *planner) sortPages() []string {
	var ps []string
	for _, s := range sorts {
		for _, o := range []string{"asc", "desc"} {
			ps = append(ps, api+"/flags?sort="+s+"&order="+o)
		}
	}
	return ps
}

// listCases are the first pages of the list: the default, each sort and
// order, each filter with every sort, and three filters at once.
func (p *planner) listCases() {
	p.add("flags-default", false, api+"/flags")
	for _, ps := range p.sortPages() {
		q, _ := url.ParseQuery(ps[len(api+"/flags?"):])
		p.add("flags-"+q.Get("sort")+"-"+q.Get("order"), false, ps)
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
	p.add("flags-category", false, bySort("category", categories)...)
	p.add("flags-region", false, bySort("region", p.regions)...)
	p.add("flags-dominant", false, bySort("dominant", dominants)...)
	var ps []string
	for _, c := range categories {
		for _, d := range dominants {
			for _, r := range p.regions[:min(2, len(p.regions))] {
				ps = append(ps, api+"/flags?category="+c+"&dominant="+d+"&region="+r)
			}
		}
	}
	p.add("flags-cat+dom+region", false, ps...)
}

// deepCases are pages at 90 % of their list: the whole list in each sort,
// each category in each sort, a category and a colour.
func (p *planner) deepCases() {
	var ps []string
	off := p.total * 9 / 10
	p.deep["all"] = off
	for _, s := range sorts {
		ps = append(ps, fmt.Sprintf("%s/flags?sort=%s&offset=%d", api, s, off))
	}
	p.add("flags-offset90", false, ps...)
	ps = nil
	for _, c := range categories {
		off := filteredTotal("category="+c) * 9 / 10
		p.deep[c] = off
		for _, s := range sorts {
			ps = append(ps, fmt.Sprintf("%s/flags?category=%s&sort=%s&offset=%d", api, c, s, off))
		}
	}
	p.add("flags-category-offset90", false, ps...)
	ps = nil
	for i, c := range categories {
		d := dominants[i%len(dominants)]
		off := filteredTotal("category="+c+"&dominant="+d) * 9 / 10
		p.deep[c+"+"+d] = off
		ps = append(ps, fmt.Sprintf("%s/flags?category=%s&dominant=%s&sort=total&offset=%d", api, c, d, off))
	}
	p.add("flags-cat+dom-offset90", false, ps...)
}

// worstFlags is the most expensive /flags: every filter at once, or the
// two largest lists intersected, at the last page with limit=100; the
// deepest page of each sort; an offset past the end; a region with no
// flag.
func (p *planner) worstFlags() {
	var ps []string
	for _, c := range categories {
		for _, d := range dominants {
			for _, r := range p.regions[:min(2, len(p.regions))] {
				q := "category=" + c + "&dominant=" + d + "&region=" + r
				ps = append(ps, fmt.Sprintf("%s/flags?%s&sort=controversial&limit=100&offset=%d", api, q,
					max(filteredTotal(q)-100, 0)))
			}
		}
	}
	for _, d := range dominants {
		q := "region=world&dominant=" + d
		ps = append(ps, fmt.Sprintf("%s/flags?%s&sort=newest&limit=100&offset=%d", api, q, max(filteredTotal(q)-100, 0)))
	}
	for _, srt := range sorts {
		ps = append(ps, fmt.Sprintf("%s/flags?sort=%s&limit=100&offset=%d", api, srt, max(p.total-100, 0)),
			fmt.Sprintf("%s/flags?sort=%s&limit=100&offset=%d", api, srt, p.total+1000),
			api+"/flags?region=aq&limit=100&sort="+srt)
	}
	p.add("flags-worst", false, ps...)
}

// detailCases are /flag/{slug} over the sample's slugs and
// /flag/{slug}/trend?days=90 over part of them.
func (p *planner) detailCases() {
	var ps []string
	for _, f := range p.flags[:min(*nSlugs, len(p.flags))] {
		ps = append(ps, api+"/flag/"+url.PathEscape(f.Slug))
	}
	p.add("flag-slug", false, ps...)
	ps = nil
	for _, f := range p.flags[:min(*nTrend, len(p.flags))] {
		ps = append(ps, api+"/flag/"+url.PathEscape(f.Slug)+"/trend?days=90")
	}
	p.add("trend", false, ps...)
}
