// Package client is a Go client of the flagpole public API: the client
// oapi-codegen generates from the API's OpenAPI document (client.gen.go),
// and Follow, which follows the live stream of vote counts.
//
// Every route of the document is a method of ClientWithResponses, which
// decodes the answer of each status into its own field, with its headers
// typed:
//
//	c, err := client.NewClientWithResponses("http://127.0.0.1:8080", client.WithBearerKey(key))
//	if err != nil { ... }
//	limit := 5
//	page, err := c.ListFlagsWithResponse(ctx, &client.ListFlagsParams{Limit: &limit})
//	if err != nil { ... } // the request failed, or the answer could not be read
//	switch {
//	case page.JSON200 != nil:
//		for _, f := range page.JSON200.Data { fmt.Println(f.Slug, f.Votes.Net) }
//	case page.ApplicationproblemJSON429 != nil:
//		wait := time.Duration(page.Headers429.RetryAfter) * time.Second
//		...
//	}
//
// Errors are problem documents (Problem) with a stable Code. Categories,
// contexts, error codes, match kinds and end reasons may gain values (the
// document's Versioning section): their types are string types whose
// constants are the values known today, and any other value decodes as it
// is.
//
// A generated call of the stream (StreamVotesWithResponse) would wait for
// an answer that does not end. Follow reads it instead, event by event, and
// reconnects as the server asks:
//
//	sc, _ := client.NewClient("http://127.0.0.1:8080", client.WithBearerKey(key))
//	slugs := "gives-up-their-seat-to-the-elderly-on-the-bus"
//	err := sc.Follow(ctx, &client.StreamVotesParams{Slug: &slugs}, func(ev client.StreamEvent) error {
//		switch ev.Type {
//		case client.EventVotes:
//			for _, f := range ev.Votes.Flags { fmt.Println(f.Slug, f.Votes.Red, f.Votes.Green) }
//		case client.EventResync:
//			// events were missed for good: read the flags shown again
//		}
//		return nil
//	})
//
// client.gen.go is generated (go generate; see generate.go) and is not
// edited by hand; a test regenerates it from the document and fails when
// the two differ.
package client

import (
	"context"
	"net/http"
)

// WithBearerKey sends key in the Authorization header of every request, as
// the API asks: Authorization: Bearer <key>.
func WithBearerKey(key string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	})
}
