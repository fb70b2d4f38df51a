package httpapi

import (
	"strconv"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = appendTimeMS(b, t.UnixMilli()) // time's AppendFormat took 700 instructions a time
	return append(b, '"')
}

func renderList(q memstore.ListQuery, page memstore.Page, total int) []byte {
	size := 128
	for k := range page.Len() {
		size += flagSize(page.At(k))
	}
	b := make([]byte, 0, size)
	b = append(b, `{"count":`...)
	b = appendInt(b, int64(page.Len()))
	b = append(b, `,"total":`...)
	b = appendInt(b, int64(total))
	b = append(b, `,"sort":"`...)
	b = append(b, q.Sort.String()...)
	b = append(b, `","order":"`...)
	if q.Desc {
		b = append(b, "desc"...)
	} else {
		b = append(b, "asc"...)
	}
	b = append(b, `","limit":`...)
	b = appendInt(b, int64(q.Limit))
	b = append(b, `,"offset":`...)
	b = appendInt(b, int64(q.Offset))
	b = append(b, `,"data":[`...)
	for k := range page.Len() {
		if k > 0 {
			b = append(b, ',')
		}
		f := page.At(k)
		b = appendItem(b, f)
	}
	return append(b, "]}"...)
}

func renderSearch(r searchReq, hits []memstore.SearchHit, total int) []byte {
	b := make([]byte, 0, 128+len(hits)*640)
	b = append(b, `{"count":`...)
	b = appendInt(b, int64(len(hits)))
	b = append(b, `,"total":`...)
	b = appendInt(b, int64(total))
	b = append(b, `,"q":`...)
	b = appendString(b, r.q)
	b = append(b, `,"limit":`...)
	b = appendInt(b, int64(r.opt.Limit))
	b = append(b, `,"offset":`...)
	b = appendInt(b, int64(r.opt.Offset))
	b = append(b, `,"data":[`...)
	for i := range hits {
		h := &hits[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendHead(b, h.Flag)
		b = append(b, `,"rank":`...)
		b = strconv.AppendFloat(b, h.Rank, 'f', -1, 64)
		b = appendMatches(b, &h.Matches)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendMatches appends a hit's matches field: per language with a match,
// its matched words as code point offsets into the text and their kind.
func appendMatches(b []byte, ms *[memstore.NumLangs][]memstore.Match) []byte {
	b = append(b, `,"matches":{`...)
	first := true
	for l, list := range ms {
		if len(list) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, memstore.LangCodes[l]...)
		b = append(b, `":[`...)
		for k, m := range list {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"start":`...)
			b = appendInt(b, int64(m.Start))
			b = append(b, `,"end":`...)
			b = appendInt(b, int64(m.End))
			b = append(b, `,"kind":"`...)
			b = append(b, m.Kind.String()...)
			b = append(b, `"}`...)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func renderTrend(f *memstore.Flag, days int, points []memstore.TrendPoint) []byte {
	b := make([]byte, 0, 160+len(points)*110)
	b = append(b, `{"slug":`...)
	b = appendString(b, f.Slug())
	b = append(b, `,"days":`...)
	b = appendInt(b, int64(days))
	b = append(b, `,"count":`...)
	b = appendInt(b, int64(len(points)))
	b = append(b, `,"current":`...)
	b = appendVotes(b, f.Red, f.Green)
	b = append(b, `,"snapshots":[`...)
	for i, p := range points {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"at":`...)
		b = appendTime(b, p.At())
		b = append(b, ',')
		b = appendVoteFields(b, p.Red, p.Green)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendCategory(b []byte, c memstore.CategoryCount) []byte {
	b = append(b, `{"slug":"`...)
	b = append(b, c.Category.Slug()...)
	b = append(b, `","enum":"`...)
	b = append(b, c.Category.Enum()...)
	b = append(b, `","count":`...)
	b = appendInt(b, int64(c.Count))
	return append(b, '}')
}

func renderCategories(cs []memstore.CategoryCount) []byte {
	b := append([]byte(`{"count":`), strconv.Itoa(len(cs))...)
	b = append(b, `,"data":[`...)
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCategory(b, c)
	}
	return append(b, "]}"...)
}

func renderRegions(rs []memstore.RegionCount) []byte {
	b := append([]byte(`{"count":`), strconv.Itoa(len(rs))...)
	b = append(b, `,"data":[`...)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		if r.Code == "" {
			b = append(b, `{"code":null,"label":"world","count":`...)
		} else {
			b = append(b, `{"code":"`...)
			b = append(b, r.Code...)
			b = append(b, `","label":"`...)
			b = append(b, r.Code...)
			b = append(b, `","count":`...)
		}
		b = appendInt(b, int64(r.Count))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func renderStats(s memstore.Stats) []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"flags":{"total":`...)
	b = appendInt(b, s.FlagsTotal)
	b = append(b, `,"redDominant":`...)
	b = appendInt(b, s.RedDominant)
	b = append(b, `,"greenDominant":`...)
	b = appendInt(b, s.GreenDominant)
	b = append(b, `,"mixed":`...)
	b = appendInt(b, s.Mixed)
	b = append(b, `,"addedLast24h":`...)
	b = appendInt(b, s.AddedLast24h)
	b = append(b, `},"users":{"total":`...)
	b = appendInt(b, s.UsersTotal)
	b = append(b, `},"votes":{"total":`...)
	b = appendInt(b, s.VotesTotal)
	b = append(b, `,"last24h":`...)
	b = appendInt(b, s.VotesLast24h)
	b = append(b, `,"last7d":`...)
	b = appendInt(b, s.VotesLast7d)
	b = append(b, `,"last30d":`...)
	b = appendInt(b, s.VotesLast30d)
	b = append(b, `},"topCategories":[`...)
	for i, c := range s.TopCategories {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCategory(b, c)
	}
	b = append(b, `],"generatedAt":`...)
	b = appendTime(b, s.GeneratedAt)
	return append(b, '}')
}
