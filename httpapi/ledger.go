package httpapi

// ledgerOff names the mechanisms of this package to leave out, so that
// the ledger in bench/README.md can measure what each one buys on the
// route it serves. A service build leaves none out; a build with the tag
// ledger reads them from FLAGPOLE_LEDGER_OFF (see ledger_env.go).
var ledgerOff struct {
	// details: no details' or trends' table; /flag/{slug} and its trend
	// are answered from the response cache, which gets their bytes.
	details bool
	// answers: no answers' table; every query route asks its handler,
	// and the response cache gets the table's bytes.
	answers bool
	// spellings: every search query is parsed and keyed anew.
	spellings bool
}
