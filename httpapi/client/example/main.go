// Command example is a tour of the flagpole API through the generated Go
// client: a filtered list, one flag and its trend, a search with its
// highlights, the key's budget, and the typed errors of a 400, a 401 and a
// 404; with -spend, also a 429 and its Retry-After, by spending what is left
// of the key's budget (the key then waits out its minute).
//
//	FLAGPOLE_KEY=grf_... go run ./httpapi/client/example [-url http://127.0.0.1:8080] [-spend]
//
// It prints what it reads, and exits 1 when an answer is not what the API
// documents.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/flagpole/flagpole/httpapi/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the API's base URL")
	spend := flag.Bool("spend", false, "spend the key's budget to show a 429")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, *url, os.Getenv("FLAGPOLE_KEY"), *spend, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url, key string, spend bool, out io.Writer) error {
	if key == "" {
		return errors.New("set FLAGPOLE_KEY to an API key (flagpole serve --demo prints one)")
	}
	c, err := client.NewClientWithResponses(url, client.WithBearerKey(key))
	if err != nil {
		return err
	}
	slug, err := list(ctx, c, out)
	if err != nil {
		return err
	}
	for _, step := range []func(context.Context, *client.ClientWithResponses, string, io.Writer) error{
		one, trend, search, budget, badRequest, notFound,
	} {
		if err := step(ctx, c, slug, out); err != nil {
			return err
		}
	}
	if err := unauthorized(ctx, url, out); err != nil {
		return err
	}
	if spend {
		return tooMany(ctx, c, out)
	}
	return nil
}

// list shows the most controversial social flags of the world region that
// split their voters, and returns the slug of the first.
func list(ctx context.Context, c *client.ClientWithResponses, out io.Writer) (string, error) {
	sort, category, region, dominant, limit := client.Controversial, "social", "world", client.Yellow, 3
	r, err := c.ListFlagsWithResponse(ctx, &client.ListFlagsParams{
		Sort: &sort, Category: &category, Region: &region, Dominant: &dominant, Limit: &limit,
	})
	if err != nil {
		return "", err
	}
	if r.JSON200 == nil {
		return "", unexpected("list", r.StatusCode(), r.Body)
	}
	p := r.JSON200
	fmt.Fprintf(out, "flags: %d of %d controversial social flags of the world, split (sort %s, order %s)\n",
		p.Count, p.Total, p.Sort, p.Order)
	for _, f := range p.Data {
		if f.Category != client.SOCIAL || f.Region != nil || f.Dominant != client.Yellow {
			return "", fmt.Errorf("list: %s is %s/%v/%s, outside the filters", f.Slug, f.Category, f.Region, f.Dominant)
		}
		fmt.Fprintf(out, "  %-60s red %5d green %5d  %s\n", f.Slug, f.Votes.Red, f.Votes.Green, f.Text.En)
	}
	fmt.Fprintf(out, "  budget left: %d of %d\n", r.Headers200.XRateLimitRemaining, r.Headers200.XRateLimitLimit)
	if len(p.Data) == 0 {
		return "", errors.New("list: no flag to show")
	}
	return p.Data[0].Slug, nil
}

// one shows one flag with its contexts and description.
func one(ctx context.Context, c *client.ClientWithResponses, slug string, out io.Writer) error {
	r, err := c.GetFlagWithResponse(ctx, slug, nil)
	if err != nil {
		return err
	}
	if r.JSON200 == nil {
		return unexpected("flag", r.StatusCode(), r.Body)
	}
	f := r.JSON200
	desc := "no description in English"
	if f.Description.En != nil {
		desc = *f.Description.En
	}
	fmt.Fprintf(out, "flag: %s (%s) %q, contexts %v, created %s (%s)\n", f.Slug, f.Id, f.Text.En, f.Contexts,
		f.CreatedAt.Format(time.DateOnly), desc)
	return nil
}

// trend shows the last week of the flag's daily snapshots.
func trend(ctx context.Context, c *client.ClientWithResponses, slug string, out io.Writer) error {
	days := 7
	r, err := c.GetFlagTrendWithResponse(ctx, slug, &client.GetFlagTrendParams{Days: &days})
	if err != nil {
		return err
	}
	if r.JSON200 == nil {
		return unexpected("trend", r.StatusCode(), r.Body)
	}
	t := r.JSON200
	fmt.Fprintf(out, "trend: %d snapshots in %d days, now red %d green %d\n", t.Count, t.Days, t.Current.Red, t.Current.Green)
	for _, s := range t.Snapshots {
		fmt.Fprintf(out, "  %s net %+d\n", s.At.Format(time.DateOnly), s.Net)
	}
	return nil
}

// search finds "yasli otob" (Yaşlılara otobüste) and marks the words that
// matched, from the code point offsets of each hit's matches.
func search(ctx context.Context, c *client.ClientWithResponses, _ string, out io.Writer) error {
	r, err := c.SearchFlagsWithResponse(ctx, &client.SearchFlagsParams{Q: "yasli otob"})
	if err != nil {
		return err
	}
	if r.JSON200 == nil {
		return unexpected("search", r.StatusCode(), r.Body)
	}
	s := r.JSON200
	fmt.Fprintf(out, "search %q: %d of %d\n", s.Q, s.Count, s.Total)
	for _, hit := range s.Data {
		if hit.Matches == nil || hit.Matches.Tr == nil {
			return fmt.Errorf("search: %s has no Turkish matches", hit.Slug)
		}
		fmt.Fprintf(out, "  rank %.3f  %s\n", hit.Rank, mark(hit.Text.Tr, *hit.Matches.Tr))
	}
	if s.Total == 0 {
		return errors.New("search: no hit")
	}
	return nil
}

// mark puts brackets around each match of text; start and end count code
// points, end exclusive.
func mark(text string, matches []client.SearchMatch) string {
	runes := []rune(text)
	var b strings.Builder
	at := 0
	for _, m := range matches {
		b.WriteString(string(runes[at:m.Start]))
		fmt.Fprintf(&b, "[%s|%s]", string(runes[m.Start:m.End]), m.Kind)
		at = m.End
	}
	b.WriteString(string(runes[at:]))
	return b.String()
}

// budget shows the key's rate limit, which this request does not spend.
func budget(ctx context.Context, c *client.ClientWithResponses, _ string, out io.Writer) error {
	r, err := c.GetRateLimitWithResponse(ctx, nil)
	if err != nil {
		return err
	}
	if r.JSON200 == nil {
		return unexpected("rate_limit", r.StatusCode(), r.Body)
	}
	b := r.JSON200
	fmt.Fprintf(out, "rate_limit: %d of %d left in %d s, %d used, one more at %s\n", b.Remaining, b.Limit, b.Window, b.Used,
		time.Unix(int64(b.Reset), 0).UTC().Format(time.TimeOnly))
	return nil
}

// badRequest asks for a page of 0 flags: a 400 naming the parameter.
func badRequest(ctx context.Context, c *client.ClientWithResponses, _ string, out io.Writer) error {
	limit := 0
	r, err := c.ListFlagsWithResponse(ctx, &client.ListFlagsParams{Limit: &limit})
	if err != nil {
		return err
	}
	p := r.ApplicationproblemJSON400
	if p == nil || p.Code != client.KnownProblemCodeInvalidParameter || p.Param == nil || *p.Param != "limit" {
		return unexpected("limit=0", r.StatusCode(), r.Body)
	}
	fmt.Fprintf(out, "400: %s, param %s: %s (request %s)\n", p.Code, *p.Param, p.Detail, r.Headers400.XRequestId)
	return nil
}

// notFound asks for a flag no one has.
func notFound(ctx context.Context, c *client.ClientWithResponses, _ string, out io.Writer) error {
	r, err := c.GetFlagWithResponse(ctx, "no-such-flag", nil)
	if err != nil {
		return err
	}
	p := r.ApplicationproblemJSON404
	if p == nil || p.Code != client.KnownProblemCodeNotFound {
		return unexpected("no-such-flag", r.StatusCode(), r.Body)
	}
	fmt.Fprintf(out, "404: %s: %s\n", p.Code, p.Detail)
	return nil
}

// unauthorized sends a key the server does not know.
func unauthorized(ctx context.Context, url string, out io.Writer) error {
	c, err := client.NewClientWithResponses(url, client.WithBearerKey("grf_not-a-key"))
	if err != nil {
		return err
	}
	r, err := c.GetStatsWithResponse(ctx, nil)
	if err != nil {
		return err
	}
	p := r.ApplicationproblemJSON401
	if p == nil || p.Code != client.KnownProblemCodeUnauthorized {
		return unexpected("an unknown key", r.StatusCode(), r.Body)
	}
	fmt.Fprintf(out, "401: %s: %s; WWW-Authenticate: %s\n", p.Code, p.Detail, r.Headers401.WWWAuthenticate)
	return nil
}

// tooMany spends what is left of the key's budget, one request more, and
// shows the 429 and how long to wait.
func tooMany(ctx context.Context, c *client.ClientWithResponses, out io.Writer) error {
	for range 1000 {
		r, err := c.ListCategoriesWithResponse(ctx, nil)
		if err != nil {
			return err
		}
		if p := r.ApplicationproblemJSON429; p != nil {
			if p.Code != client.KnownProblemCodeRateLimited || r.Headers429.RetryAfter < 1 {
				return unexpected("the budget spent", r.StatusCode(), r.Body)
			}
			fmt.Fprintf(out, "429: %s: %s; Retry-After: %d s\n", p.Code, p.Detail, r.Headers429.RetryAfter)
			return nil
		}
		if r.JSON200 == nil {
			return unexpected("categories", r.StatusCode(), r.Body)
		}
	}
	return errors.New("no 429 within 1000 requests")
}

// unexpected is the error for an answer the API does not document.
func unexpected(what string, status int, body []byte) error {
	if len(body) > 300 {
		body = body[:300]
	}
	return fmt.Errorf("%s: unexpected answer %d: %s", what, status, body)
}
