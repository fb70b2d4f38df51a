package memstore

import (
	"cmp"
	"slices"
	"time"
)

// orderSet holds flag indices sorted for each sort and direction:
// [sort][0] ascending, [sort][1] descending primary key.
type orderSet [NumSorts][2][]int32

// Snapshot is one immutable view of every approved flag, its indexes, its
// trends and the statistics. The loader builds it off to the side; the HTTP
// layer only reads it.
type Snapshot struct {
	Gen      uint64    // increases with every snapshot of a process
	LoadedAt time.Time // when the loader read the data
	Trends   *Trends

	flags    []*Flag // ordered by id
	bySlug   map[string]int32
	byID     map[string]int32
	all      orderSet
	byCat    [NumCategories]orderSet
	byDom    [NumDominants]orderSet
	byRegion map[string]*orderSet // "" is the world
	counts   []int32              // flags per filter combination, see countIndex
	attr     []uint32             // per position: category, colour and region, see attrOf
	regIdx   map[string]int       // region -> 1.. for countIndex (0 is any region)
	search   *searchIndex
	lexicon  *lexicon

	categories []CategoryCount
	regions    []RegionCount
	stats      Stats
}

// countIndex locates the number of flags matching a combination of
// filters: cat and dom are the value + 1, or 0 for any; reg is regIdx's.
func (s *Snapshot) countIndex(cat, dom, reg int) int {
	return (reg*(NumCategories+1)+cat)*(int(NumDominants)+1) + dom
}

// Len is the number of approved flags.
func (s *Snapshot) Len() int { return len(s.flags) }

// Flags returns the flags ordered by id; the slice must not be modified.
func (s *Snapshot) Flags() []*Flag { return s.flags }

// FlagBySlug finds an approved flag.
func (s *Snapshot) FlagBySlug(slug string) (*Flag, bool) {
	i, ok := s.bySlug[slug]
	if !ok {
		return nil, false
	}
	return s.flags[i], true
}

// FlagByID finds an approved flag.
func (s *Snapshot) FlagByID(id string) (*Flag, bool) {
	i, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	return s.flags[i], true
}

// ListQuery selects a page of the flag list. Filters are applied before
// paging.
type ListQuery struct {
	Sort          Sort
	Desc          bool
	Category      Category
	HasCategory   bool
	Region        string // "" is the world when HasRegion
	HasRegion     bool
	Dominant      Dominant
	HasDominant   bool
	Limit, Offset int
}

// List returns the requested page and the number of flags that match all
// filters.
func (s *Snapshot) List(q ListQuery) ([]*Flag, int) {
	dir := 0
	if q.Desc {
		dir = 1
	}
	cat, dom, reg := 0, 0, 0
	var lists [][]int32
	if q.HasCategory {
		lists = append(lists, s.byCat[q.Category][q.Sort][dir])
		cat = int(q.Category) + 1
	}
	if q.HasDominant {
		lists = append(lists, s.byDom[q.Dominant][q.Sort][dir])
		dom = int(q.Dominant) + 1
	}
	if q.HasRegion {
		os, ok := s.byRegion[q.Region]
		if !ok {
			return nil, 0
		}
		lists = append(lists, os[q.Sort][dir])
		reg = s.regIdx[q.Region]
	}
	if len(lists) <= 1 {
		list := s.all[q.Sort][dir]
		if len(lists) == 1 {
			list = lists[0]
		}
		if q.Offset >= len(list) {
			return nil, len(list)
		}
		end := min(len(list), q.Offset+q.Limit)
		return s.pick(list[q.Offset:end]), len(list)
	}
	total := int(s.counts[s.countIndex(cat, dom, reg)])
	if q.Offset >= total {
		return nil, total
	}
	// Walk the shortest list, matching the other filters on the packed
	// attributes: no flag is read until the page starts.
	shortest := slices.MinFunc(lists, func(a, b []int32) int { return cmp.Compare(len(a), len(b)) })
	var mask, want uint32
	if q.HasCategory {
		mask, want = mask|attrCatMask, want|uint32(q.Category)
	}
	if q.HasDominant {
		mask, want = mask|attrDomMask, want|uint32(q.Dominant)<<attrDomShift
	}
	if q.HasRegion {
		mask, want = mask|attrRegMask, want|uint32(reg)<<attrRegShift
	}
	var page []*Flag
	skip := q.Offset
	for _, i := range shortest {
		if s.attr[i]&mask != want {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		page = append(page, s.flags[i])
		if len(page) == q.Limit {
			break
		}
	}
	return page, total
}

// A flag's filter attributes packed in one word: category in bits 0-3,
// dominant colour in 4-5, region index (regIdx) from bit 6.
const (
	attrCatMask  = 0xF
	attrDomShift = 4
	attrDomMask  = 0x3 << attrDomShift
	attrRegShift = 6
	attrRegMask  = uint32(0xFFFFFFFF) &^ (1<<attrRegShift - 1)
)

func (s *Snapshot) attrOf(f *Flag) uint32 {
	return uint32(f.Category) | uint32(f.Dominant)<<attrDomShift | uint32(s.regIdx[f.Region])<<attrRegShift
}

func (s *Snapshot) pick(idx []int32) []*Flag {
	out := make([]*Flag, len(idx))
	for i, j := range idx {
		out[i] = s.flags[j]
	}
	return out
}

// CategoryCount is one line of the category list.
type CategoryCount struct {
	Category Category
	Count    int
}

// RegionCount is one line of the region list; Code "" is the world.
type RegionCount struct {
	Code  string
	Count int
}

// Categories lists all eight categories by count desc, then slug asc.
func (s *Snapshot) Categories() []CategoryCount { return s.categories }

// Regions lists the world first, then every region with an approved flag
// by count desc, then code asc.
func (s *Snapshot) Regions() []RegionCount { return s.regions }

// Stats are the global statistics taken with this snapshot.
func (s *Snapshot) Stats() Stats { return s.stats }

// Stats is the statistics object of /stats.
type Stats struct {
	FlagsTotal, RedDominant, GreenDominant, Mixed, AddedLast24h int64
	UsersTotal                                                  int64
	VotesTotal, VotesLast24h, VotesLast7d, VotesLast30d         int64
	TopCategories                                               []CategoryCount
	GeneratedAt                                                 time.Time
}

// Aggregates are the numbers of /stats that only the database knows.
type Aggregates struct {
	Users                         int64
	VotesLast24h, Last7d, Last30d int64
}
