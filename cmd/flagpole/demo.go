package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/flagpole/flagpole/loader"
)

// seedDemo fills an empty database with the demo set and prints a new key
// with a curl line to try.
func (p *program) seedDemo(ctx context.Context, stdout, stderr io.Writer) error {
	var n int
	if err := p.db.GetContext(ctx, &n, "SELECT count(*) FROM flags"); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "demo: the database already has %d flags; serving them (create a key with: "+
			"go run ./cmd/flagpole keys create --db %s --name NAME, or flagpole keys create ... with a built binary)\n", n, loader.Redact(p.cfg.DB))
		return nil
	}
	fmt.Fprintln(stderr, "demo: seeding the demo data set...")
	prog := newProgress(stderr, "seed", "flags")
	err := p.db.Seed(ctx, loader.SeedOptions{Flags: loader.DemoSize(), Users: 500, Days: 90, Seed: 1,
		Progress: prog.count})
	prog.done()
	if err != nil {
		return err
	}
	secret, _, err := p.db.CreateKey(ctx, "demo", "", 0)
	if err != nil {
		return err
	}
	addr := p.ln.Addr().String()
	curl := fmt.Sprintf("curl -H 'Authorization: Bearer %s' 'http://%s/api/public/flags?limit=2'", secret, addr)
	fmt.Fprintf(stdout, "\nflagpole demo: %d flags seeded. Your API key (only its hash is stored: copy it now):\n\n  %s\n\nTry:\n\n  %s\n\n"+
		"Explorer: http://%s/ (paste the key)   Reference: http://%s/api/public/docs\n\n", loader.DemoSize(), secret, curl, addr, addr)
	p.banner = box("flagpole demo is ready. Your API key (only its hash is stored: copy it now):", "", "  "+secret, "", "Try:", "  "+curl, "",
		fmt.Sprintf("Explorer: http://%s/   Reference: http://%s/api/public/docs", addr, addr))
	return nil
}

// box frames lines between two rules, without side borders, so that a
// line copied from it is exactly the command.
func box(lines ...string) string {
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	rule := strings.Repeat("=", width)
	return "\n" + rule + "\n" + strings.Join(lines, "\n") + "\n" + rule + "\n\n"
}
