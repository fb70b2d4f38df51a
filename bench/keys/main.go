// Command keys creates bench/run's API keys in one process (the CLI's
// `flagpole keys create` starts, opens and checks the database once per
// key: hundreds of keys took minutes on a busy machine) and prints their
// secrets, one a line.
//
//	keys -db URL -n 300 -limit 20000 -name bench
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/flagpole/flagpole/loader"
)

func main() {
	db := flag.String("db", "", "database URL (sqlite:FILE or postgres://...)")
	n := flag.Int("n", 300, "keys to create")
	limit := flag.Int("limit", 0, "requests per minute of each key (0: the service's rate_limit)")
	name := flag.String("name", "bench", "name prefix: NAME-1, NAME-2, ...")
	flag.Parse()
	ctx := context.Background()
	d, err := loader.OpenMigrated(ctx, *db)
	if err != nil {
		fail(err)
	}
	defer d.Close()
	for i := 1; i <= *n; i++ {
		secret, _, err := d.CreateKey(ctx, fmt.Sprintf("%s-%d", *name, i), "", *limit)
		if err != nil {
			fail(err)
		}
		fmt.Println(secret)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "keys:", err)
	os.Exit(1)
}
