package httpapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// OpenAPIYAML is the API's contract document, as written.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte

// OpenAPIJSON is the contract document converted to JSON, in the order it
// is written, as served at /api/public/openapi.json.
func OpenAPIJSON() ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(OpenAPIYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml to JSON: %w", err)
	}
	if !json.Valid(buf.Bytes()) {
		return nil, fmt.Errorf("openapi.yaml to JSON: invalid result")
	}
	return buf.Bytes(), nil
}

// writeJSON writes a YAML node as JSON, keeping the order of mappings.
func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return writeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(buf, n.Alias)
	case yaml.MappingNode:
		return writeMapping(buf, n)
	case yaml.SequenceNode:
		return writeSequence(buf, n)
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	}
	return fmt.Errorf("unexpected YAML node kind %d", n.Kind)
}

// writeMapping writes a YAML mapping as a JSON object, its keys in order.
func writeMapping(buf *bytes.Buffer, n *yaml.Node) error {
	buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(n.Content[i].Value)
		buf.Write(k)
		buf.WriteByte(':')
		if err := writeJSON(buf, n.Content[i+1]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeSequence writes a YAML sequence as a JSON array.
func writeSequence(buf *bytes.Buffer, n *yaml.Node) error {
	buf.WriteByte('[')
	for i, c := range n.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeJSON(buf, c); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

// writeScalar writes a YAML scalar as JSON: null, a boolean or a number
// by its tag, else a string.
func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	default:
		b, _ := json.Marshal(n.Value)
		buf.Write(b)
	}
	return nil
}
