package client

// client.gen.go is oapi-codegen's client for ../openapi.yaml: its types and
// client (no server, no embedded document), and with skip-prune every schema
// of the document, so that the stream's events (StreamVotes, StreamEnd),
// which only the stream's contentSchema names, are generated too. Nothing
// else is set. TestGeneratedIsCurrent runs this same line and fails when the
// file differs, or when the generator fails or warns.
//
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -generate types,client,skip-prune -package client -o client.gen.go ../openapi.yaml
