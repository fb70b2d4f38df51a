package loader

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/flagpole/flagpole/memstore"
)

// SeedOptions size the demo data set.
type SeedOptions struct {
	Flags, Users, Days int
	Seed               uint64
	// Now anchors every date; zero means the present.
	Now time.Time
	// Progress, when set, is told the flags written so far.
	Progress func(done, total int)
}

// seedRegions are the regions of the demo data, with weights; "" is the
// world.
var seedRegions = []struct {
	code   string
	weight int
}{{"", 40}, {"TR", 14}, {"DE", 10}, {"ES", 9}, {"US", 7}, {"GB", 4}, {"MX", 4}, {"AR", 3},
	{"AT", 2}, {"CH", 2}, {"FR", 2}, {"NL", 1}, {"BR", 1}, {"CO", 1}}

// Seed writes a realistic, deterministic demo data set into an empty
// database: users, flags in all four languages across every category,
// context and colour, daily snapshots and votes over the last 30 days.
func (db *DB) Seed(ctx context.Context, o SeedOptions) error {
	var existing int
	if err := db.GetContext(ctx, &existing, "SELECT count(*) FROM flags"); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if existing > 0 {
		return fmt.Errorf("seed: the database already holds %d flags; seed writes only into an empty one", existing)
	}
	if o.Flags < 1 || o.Users < 1 || o.Days < 0 || o.Days > 3650 {
		return fmt.Errorf("seed: want at least 1 flag and 1 user, and 0 to 3650 days")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	now := o.Now.UTC().Truncate(time.Millisecond)
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))

	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	defer tx.Rollback()
	w := newBatcher(ctx, tx, db.Dialect)

	userIDs := make([]string, o.Users)
	for i := range userIDs {
		userIDs[i] = fmt.Sprintf("usr_%06d", i+1)
		created := now.Add(-time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
		if err := w.add("users", []string{"id", "created_at:ts"}, userIDs[i], tsText(created)); err != nil {
			return fmt.Errorf("seed users: %w", err)
		}
	}

	flagIDs := make([]string, 0, o.Flags)
	slugs := map[string]int{}
	today := memstore.DayOf(now)
	for i := 0; i < o.Flags; i++ {
		st := seedOrder[i%len(seedOrder)]
		id := fmt.Sprintf("flg_%08d%06x", i+1, rng.Uint32()&0xffffff) // ascending: appends to the key order
		base := slugify(st.Text[memstore.EN])
		slugs[base]++
		slug := base
		if slugs[base] > 1 {
			slug = fmt.Sprintf("%s-%d", base, slugs[base])
		}
		status := "APPROVED"
		switch r := rng.IntN(100); {
		case r < 6:
			status = "PENDING"
		case r < 10:
			status = "REJECTED"
		}
		var region any
		if code := pickRegion(rng); code != "" {
			region = code
		}
		// A long tail of popularity; the lean of the statement decides how
		// the votes split.
		total := int64(math.Exp(rng.NormFloat64()*1.6+5.5)) + int64(rng.IntN(3))
		share := 0.5 + float64(st.Lean)*0.28 + rng.NormFloat64()*0.12
		share = min(max(share, 0.02), 0.98)
		red := int64(math.Round(float64(total) * share))
		green := total - red
		age := time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))
		if rng.IntN(100) < 3 {
			age = time.Duration(rng.Int64N(int64(20 * time.Hour)))
		}
		created := now.Add(-age)
		var desc [memstore.NumLangs]any
		for l, d := range st.Description {
			if d != "" {
				desc[l] = d
			}
		}
		if err := w.add("flags", []string{"id", "slug", "status", "category", "region", "text_tr", "text_en", "text_de",
			"text_es", "description_tr", "description_en", "description_de", "description_es", "contexts",
			"red_count", "green_count", "created_at:ts"},
			id, slug, status, st.Category, region, st.Text[0], st.Text[1], st.Text[2], st.Text[3],
			desc[0], desc[1], desc[2], desc[3], strings.Join(st.Contexts, ","), red, green, tsText(created)); err != nil {
			return fmt.Errorf("seed flags: %w", err)
		}
		flagIDs = append(flagIDs, id)

		// Daily snapshots: the counters grew towards today's values.
		createdDay := memstore.DayOf(created)
		for d := today - int32(o.Days) + 1; d <= today; d++ {
			if d < createdDay {
				continue
			}
			frac := math.Pow(float64(d-createdDay+1)/float64(today-createdDay+1), 0.8)
			sr, sg := int64(float64(red)*frac), int64(float64(green)*frac)
			if err := w.add("flag_snapshots", []string{"flag_id", "day:day", "red", "green"}, id, dayText(d), sr, sg); err != nil {
				return fmt.Errorf("seed snapshots: %w", err)
			}
		}
		if o.Progress != nil && (i+1)%1000 == 0 {
			o.Progress(i+1, o.Flags)
		}
	}
	if err := w.flush(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}

	// Votes through the contract's statement, so the triggers move the
	// counters as they do for the voting application.
	vote, err := tx.PreparexContext(ctx, db.Rebind("INSERT INTO votes (flag_id, user_id, color, created_at) VALUES (?, ?, ?, "+
		tsParam(db.Dialect)+") ON CONFLICT (flag_id, user_id) DO NOTHING"))
	if err != nil {
		return fmt.Errorf("seed votes: %w", err)
	}
	for _, u := range userIDs {
		n := rng.IntN(min(40, len(flagIDs)) + 1)
		for j := 0; j < n; j++ {
			fi := rng.IntN(len(flagIDs))
			st := seedOrder[fi%len(seedOrder)]
			color := "green"
			if rng.Float64() < 0.5+float64(st.Lean)*0.3 {
				color = "red"
			}
			at := now.Add(-time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
			if _, err := vote.ExecContext(ctx, flagIDs[fi], u, color, tsText(at)); err != nil {
				return fmt.Errorf("seed votes: %w", err)
			}
		}
	}
	if o.Progress != nil {
		o.Progress(o.Flags, o.Flags)
	}
	if err := db.recordChange(ctx, tx, "seed", ""); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}

// seedOrder deals the statements round-robin across the categories, so
// that even a small seed holds every category.
var seedOrder = func() []seedStatement {
	byCat := map[string][]seedStatement{}
	for _, st := range seedStatements {
		byCat[st.Category] = append(byCat[st.Category], st)
	}
	var out []seedStatement
	for i := 0; len(out) < len(seedStatements); i++ {
		for _, c := range memstore.Categories {
			if i < len(byCat[c]) {
				out = append(out, byCat[c][i])
			}
		}
	}
	return out
}()

func pickRegion(rng *rand.Rand) string {
	total := 0
	for _, r := range seedRegions {
		total += r.weight
	}
	n := rng.IntN(total)
	for _, r := range seedRegions {
		if n < r.weight {
			return r.code
		}
		n -= r.weight
	}
	return ""
}

// slugify makes a URL-safe slug of a text's folded words.
func slugify(s string) string {
	words := memstore.Words(s)
	var b strings.Builder
	for _, w := range words {
		if b.Len()+len(w) > 60 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return "flag"
	}
	return b.String()
}
