package loader

// SetHookAfterFlags sets the function a load runs between its read of the
// flags and its count of them (nil: none).
func SetHookAfterFlags(f func()) { testHookAfterFlags = f }
