package memstore

// OSAPrefixes lends the external tests (the relevance set's) the
// reference distance the internal ones check typos with.
var OSAPrefixes = osaPrefixes
