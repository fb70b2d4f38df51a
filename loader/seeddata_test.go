package loader

import (
	"bytes"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/memstore"
)

// The embedded statements are the demo data set: enough of them, every
// category, context and lean, and each text its own in every language.
func TestDemoStatements(t *testing.T) {
	sts, err := DemoStatements()
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) < 600 {
		t.Errorf("%d demo statements, want at least 600", len(sts))
	}
	if DemoSize() != len(sts) {
		t.Errorf("DemoSize() = %d for %d statements", DemoSize(), len(sts))
	}
	if !bytes.HasSuffix(demoStatementsJSONL, []byte("}\n")) {
		t.Error("the statements file must end with a newline after its last statement")
	}
	leans := map[string]map[int]int{}
	contexts := map[string]int{}
	for _, st := range sts {
		if leans[st.Category] == nil {
			leans[st.Category] = map[int]int{}
		}
		leans[st.Category][st.Lean]++
		for _, c := range st.Contexts {
			contexts[c]++
		}
		for _, code := range memstore.LangCodes {
			if s := st.Text[code]; s != strings.TrimSpace(s) || strings.Contains(s, "  ") {
				t.Errorf("%s: text.%s %q has stray spaces", st.Slug, code, s)
			}
		}
	}
	for _, c := range memstore.Categories {
		n := leans[c][-1] + leans[c][0] + leans[c][1]
		if n < 60 {
			t.Errorf("category %s has %d statements, want at least 60", c, n)
		}
		for _, l := range []int{-1, 0, 1} {
			if leans[c][l] < n/5 {
				t.Errorf("category %s: %d of %d statements lean %d, want at least a fifth", c, leans[c][l], n, l)
			}
		}
	}
	for _, c := range memstore.Contexts {
		if contexts[c] < 40 {
			t.Errorf("context %s is on %d statements, want at least 40", c, contexts[c])
		}
	}
}

// parseStatements refuses every kind of bad line, naming its number.
func TestParseStatementsRefuses(t *testing.T) {
	good := `{"slug":"keeps-promises","category":"CHARACTER","contexts":["FRIEND"],"lean":-1,"text":{"tr":"Sözünü tutar","en":"Keeps promises","de":"Hält Versprechen","es":"Cumple sus promesas"}}`
	if _, err := parseStatements([]byte(good + "\n")); err != nil {
		t.Fatalf("a good line: %v", err)
	}
	other := `{"slug":"tells-the-truth","category":"SOCIAL","contexts":["WORK","ONLINE"],"lean":0,"text":{"tr":"Doğruyu söyler","en":"Tells the truth","de":"Sagt die Wahrheit","es":"Dice la verdad"},"description":{"en":"Always."}}`
	if sts, err := parseStatements([]byte(good + "\n" + other + "\n")); err != nil || len(sts) != 2 {
		t.Fatalf("two good lines: %d statements, %v", len(sts), err)
	}
	for _, tc := range []struct{ name, line, want string }{
		{"not JSON", `{"slug":`, "line 2"},
		{"unknown field", strings.Replace(other, `"lean"`, `"colour":"red","lean"`, 1), "colour"},
		{"unknown category", strings.Replace(other, "SOCIAL", "SPORTS", 1), "category"},
		{"unknown context", strings.Replace(other, `"ONLINE"`, `"SCHOOL"`, 1), "context"},
		{"repeated context", strings.Replace(other, `"ONLINE"`, `"WORK"`, 1), "context"},
		{"no context", strings.Replace(other, `["WORK","ONLINE"]`, `[]`, 1), "contexts"},
		{"lean out of range", strings.Replace(other, `"lean":0`, `"lean":2`, 1), "lean"},
		{"a language missing", strings.Replace(other, `"tr":"Doğruyu söyler",`, ``, 1), "languages"},
		{"an empty text", strings.Replace(other, `"Sagt die Wahrheit"`, `" ... "`, 1), "text.de"},
		{"an unknown description language", strings.Replace(other, `{"en":"Always."}`, `{"fr":"Toujours."}`, 1), "description.fr"},
		{"the same slug", strings.Replace(other, "tells-the-truth", "keeps-promises", 1), "slug"},
		{"a numbered slug", strings.Replace(other, "tells-the-truth", "tells-the-truth-2", 1), "number"},
		{"an upper-case slug", strings.Replace(other, "tells-the-truth", "Tells-the-truth", 1), "slug"},
		{"the same text in one language, folded", strings.Replace(other, `"Doğruyu söyler"`, `"SÖZÜNÜ TUTAR!"`, 1), "text.tr"},
		{"the same Spanish text without accents", strings.Replace(other, `"Dice la verdad"`, `"cumple sus promesas"`, 1), "text.es"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseStatements([]byte(good + "\n" + tc.line + "\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 2") {
				t.Errorf("got %v, want an error on line 2 naming %q", err, tc.want)
			}
		})
	}
}
