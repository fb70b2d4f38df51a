package httpapi

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// OpenAPIYAML is the API's contract document, as written.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte

// OpenAPIJSON is the contract document converted to JSON, as served at
// /api/public/openapi.json.
func OpenAPIJSON() ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(OpenAPIYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	b, err := json.Marshal(stringKeys(doc))
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml to JSON: %w", err)
	}
	return b, nil
}

// stringKeys turns the maps YAML decodes with non-string keys (status
// codes such as 200) into JSON objects.
func stringKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = stringKeys(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = stringKeys(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = stringKeys(x)
		}
		return t
	default:
		return v
	}
}
