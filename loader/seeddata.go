package loader

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/flagpole/flagpole/memstore"
)

// demoStatementsJSONL is the bank of demo statements, one JSON object a
// line: {"slug", "category", "contexts", "lean", "text": {tr, en, de,
// es}, "description": {...}}. Every text is distinct in every language.
//
//go:embed demo/statements.jsonl
var demoStatementsJSONL []byte

// Statement is one believable flag text of the demo data set, in the
// four languages.
type Statement struct {
	// Slug is the statement's stable key and the slug of its first flag.
	Slug     string   `json:"slug"`
	Category string   `json:"category"` // one of memstore.Categories
	Contexts []string `json:"contexts"` // one to four of memstore.Contexts
	// Lean is how voters tend to see it: -1 mostly green, 0 divided, +1
	// mostly red.
	Lean        int               `json:"lean"`
	Text        map[string]string `json:"text"`                  // by language code, all four
	Description map[string]string `json:"description,omitempty"` // by language code, any of the four
}

// DemoSize is the number of demo statements: a seed of at most this many
// flags gives every flag its own text.
func DemoSize() int { return bytes.Count(demoStatementsJSONL, []byte("\n")) }

// DemoStatements returns the demo statements in file order, checked.
func DemoStatements() ([]Statement, error) { return demoStatements() }

var demoStatements = sync.OnceValues(func() ([]Statement, error) {
	return parseStatements(demoStatementsJSONL)
})

var statementSlug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// parseStatements reads a statements file and checks every line: known
// category and contexts, a lean of -1, 0 or 1, four non-empty texts, a
// unique slug that does not end in a number (numbered slugs are the seed's
// repeats), and no text that another statement has in the same language
// (compared as search compares words).
func parseStatements(data []byte) ([]Statement, error) {
	var out []Statement
	slugs := map[string]int{}
	var texts [memstore.NumLangs]map[string]int
	for l := range texts {
		texts[l] = map[string]int{}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var st Statement
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			return nil, fmt.Errorf("demo statements line %d: %w", n, err)
		}
		if err := checkStatement(&st); err != nil {
			return nil, fmt.Errorf("demo statements line %d: %w", n, err)
		}
		if prev, ok := slugs[st.Slug]; ok {
			return nil, fmt.Errorf("demo statements line %d: slug %q is already on line %d", n, st.Slug, prev)
		}
		slugs[st.Slug] = n
		for l, code := range memstore.LangCodes {
			key := strings.Join(memstore.Words(st.Text[code]), " ")
			if prev, ok := texts[l][key]; ok {
				return nil, fmt.Errorf("demo statements line %d: text.%s %q is already on line %d", n, code, st.Text[code], prev)
			}
			texts[l][key] = n
		}
		out = append(out, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("demo statements: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("demo statements: none")
	}
	return out, nil
}

func checkStatement(st *Statement) error {
	if !statementSlug.MatchString(st.Slug) || len(st.Slug) > 80 {
		return fmt.Errorf("slug %q: want lower-case words of [a-z0-9] joined by '-', at most 80 bytes", st.Slug)
	}
	if i := strings.LastIndexByte(st.Slug, '-'); i >= 0 && strings.Trim(st.Slug[i+1:], "0123456789") == "" {
		return fmt.Errorf("slug %q ends in a number, as the seed's repeats do", st.Slug)
	}
	if !slices.Contains(memstore.Categories, st.Category) {
		return fmt.Errorf("category %q: want one of %v", st.Category, memstore.Categories)
	}
	if len(st.Contexts) == 0 || len(st.Contexts) > 4 {
		return fmt.Errorf("%d contexts: want 1 to 4", len(st.Contexts))
	}
	for i, c := range st.Contexts {
		if !slices.Contains(memstore.Contexts, c) || slices.Contains(st.Contexts[:i], c) {
			return fmt.Errorf("context %q: want distinct ones of %v", c, memstore.Contexts)
		}
	}
	if st.Lean < -1 || st.Lean > 1 {
		return fmt.Errorf("lean %d: want -1, 0 or 1", st.Lean)
	}
	if len(st.Text) != len(memstore.LangCodes) {
		return fmt.Errorf("text has %d languages: want exactly %v", len(st.Text), memstore.LangCodes)
	}
	for _, code := range memstore.LangCodes {
		if len(memstore.Words(st.Text[code])) == 0 {
			return fmt.Errorf("text.%s is empty", code)
		}
	}
	for code, d := range st.Description {
		if !slices.Contains(memstore.LangCodes[:], code) || strings.TrimSpace(d) == "" {
			return fmt.Errorf("description.%s: want a non-empty text under a code of %v", code, memstore.LangCodes)
		}
	}
	return nil
}
