package httpapi

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWriteJSON: each kind of YAML node as JSON, a mapping's keys in the
// order written (a last key without a value left out), scalars by their
// tags, aliases followed; an empty document is null, and a node of no
// known kind an error.
func TestWriteJSON(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"b: 1\na: [x, 2.5, true, null, '3']", `{"b":1,"a":["x",2.5,true,null,"3"]}`},
		{"x: &v {k: \"q\\\"\"}\ny: *v", `{"x":{"k":"q\""},"y":{"k":"q\""}}`},
		{"[]", `[]`},
		{"{}", `{}`},
		{"~", `null`},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.yaml), &doc); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := writeJSON(&buf, &doc); err != nil || buf.String() != c.want {
			t.Errorf("%q: %s, %v; want %s", c.yaml, buf.String(), err, c.want)
		}
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, &yaml.Node{Kind: yaml.DocumentNode}); err != nil || buf.String() != "null" {
		t.Errorf("an empty document: %s, %v; want null", buf.String(), err)
	}
	if err := writeJSON(&buf, &yaml.Node{Kind: 0}); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("a node of no kind: %v, want an error", err)
	}
	buf.Reset()
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	odd := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), str("v"), str("alone")}}
	if err := writeJSON(&buf, odd); err != nil || buf.String() != `{"k":"v"}` {
		t.Errorf("a mapping whose last key has no value: %s, %v; want its pairs", buf.String(), err)
	}
	bad := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "x"}
	if err := writeJSON(&buf, &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{bad}}); err == nil {
		t.Error("an !!int that is no number: no error")
	}
	if err := writeJSON(&buf, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "k"}, bad}}); err == nil {
		t.Error("an !!int that is no number in a mapping: no error")
	}
}
