package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"

	"github.com/flagpole/flagpole/httpapi"
)

// The sets the document calls open (Versioning) take a value they do not
// list yet, as an answer of a later minor release would carry it, so a
// client generated from the document reads that answer instead of failing;
// the closed sets refuse one. Versioning names every open set.
func TestOpenSets(t *testing.T) {
	openapiValidator(t)
	schemas := specModel.Model.Components.Schemas
	v := schema_validation.NewSchemaValidator()
	const item = `{"id":"flg_00000610c2c50f","slug":"s","category":%q,"region":null,"text":{"tr":"a","en":"a","de":"a","es":"a"},` +
		`"votes":{"red":1,"green":0,"total":1,"net":1},"dominant":%q,"createdAt":"2026-11-29T01:44:35.000Z"}`
	for _, c := range []struct {
		schema, payload string
		open            bool
	}{
		{"FlagListItem", fmt.Sprintf(item, "CHARACTER", "red"), true},
		{"FlagListItem", fmt.Sprintf(item, "TRAVEL", "red"), true},
		{"CategoryItem", `{"slug":"travel","enum":"TRAVEL","count":3}`, true},
		{"FlagDetail", strings.TrimSuffix(fmt.Sprintf(item, "TRAVEL", "green"), "}") +
			`,"contexts":["SCHOOL"],"description":{"tr":null,"en":null,"de":null,"es":null}}`, true},
		{"SearchMatch", `{"start":0,"end":4,"kind":"synonym"}`, true},
		{"StreamEnd", `{"reason":"moved"}`, true},
		{"Problem", `{"type":"about:blank","title":"Payment Required","status":402,"detail":"d","code":"payment_required"}`, true},
		{"FlagListItem", fmt.Sprintf(item, "CHARACTER", "blue"), false},
		{"FlagList", `{"count":0,"total":0,"sort":"hot","order":"asc","limit":1,"offset":0,"data":[]}`, false},
		{"FlagList", `{"count":0,"total":0,"sort":"net","order":"up","limit":1,"offset":0,"data":[]}`, false},
	} {
		s, ok := schemas.Get(c.schema)
		if !ok {
			t.Fatalf("no schema %s", c.schema)
		}
		var payload any
		if err := json.Unmarshal([]byte(c.payload), &payload); err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		if ok, errs := v.ValidateSchemaObject(s.Schema(), payload); ok != c.open {
			t.Errorf("%s %s: valid %v, want %v %v", c.schema, c.payload, ok, c.open, errs)
		}
	}

	var doc struct {
		Tags []struct{ Name, Description string }
	}
	raw, err := httpapi.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var versioning string
	for _, tag := range doc.Tags {
		if tag.Name == "Versioning" {
			versioning = tag.Description
		}
	}
	for _, open := range []string{"Category", "CategorySlug", "Context", "MatchKind", "EndReason", "ProblemCode"} {
		if !strings.Contains(versioning, "`"+open+"`") {
			t.Errorf("Versioning does not name the open set %s", open)
		}
		s, _ := schemas.Get(open)
		if s == nil || len(s.Schema().AnyOf) != 2 {
			t.Errorf("%s is not anyOf its known values and a string", open)
		}
	}
}

// What generated clients are made of: one operation per route (the GET;
// HEAD and the preflight are described once, in Conventions and CORS, so a
// client has no headFlags beside listFlags), no parameter component named
// as a schema is (Go's generator refuses the clash: duplicate typename),
// a type on every header (Go's generated client cannot read a header
// without one), and the fields every answer carries required.
func TestDocumentForGenerators(t *testing.T) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Parameters map[string]json.RawMessage
			Headers    map[string]struct {
				Schema map[string]any
			}
			Schemas map[string]struct {
				Required []string
			}
		}
	}
	raw, err := httpapi.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths {
		for method := range item {
			if method != "get" && method != "parameters" {
				t.Errorf("%s lists %s: list the GET only", path, method)
			}
		}
	}
	for name := range doc.Components.Parameters {
		for schema := range doc.Components.Schemas {
			if strings.EqualFold(name, schema) {
				t.Errorf("the parameter component %s and the schema %s make one Go type name", name, schema)
			}
		}
	}
	for name, h := range doc.Components.Headers {
		if h.Schema["type"] == nil {
			t.Errorf("the header %s has a schema without a type", name)
		}
	}
	for schema, fields := range map[string][]string{"SearchResults": {"count", "total", "q", "limit", "offset", "data"}} {
		for _, f := range fields {
			if !slices.Contains(doc.Components.Schemas[schema].Required, f) {
				t.Errorf("%s does not require %s, which every answer carries", schema, f)
			}
		}
	}
}
