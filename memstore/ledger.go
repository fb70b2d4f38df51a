package memstore

// ledgerOff names the mechanisms of this package to leave out, so that
// the ledger in bench/README.md can measure what each one buys on the
// route it serves. A service build leaves none out; a build with the tag
// ledger reads them from FLAGPOLE_LEDGER_OFF (see ledger_env.go).
var ledgerOff struct {
	// place: a build where every flag kept its slot merges the orders of
	// every list a change touches, as a renumbering build does, instead
	// of patching the blocks it touches (placeOrders).
	place bool
}
